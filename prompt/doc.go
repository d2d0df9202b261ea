// Package prompt tells whether a program running under a terminal (or with
// its standard input a pipe) is waiting for input, for what, and on what
// evidence: the question an agent driving a shell command has to answer
// before it types.
//
// The decision is one call, [Detector.Decide], over an [Observation] of
// the program taken at one instant (its newest line, how long its output
// has been quiet, an integrated shell's marks, the newest write), with an
// [Evidence] that answers the costlier questions only when the decision
// needs them: what the kernel shows the program's threads doing
// ([Prober]), the terminal's modes, the screen and the tail of the output.
// Its verdict, a [State], weighs in order
//
//   - an integrated shell's OSC 133/633 marks ([Scanner] finds them);
//   - a thread blocked reading the input, or a wait on it with a timer
//     that is the line's (a REPL's event loop) and not a sleep's;
//   - the shape of the line the cursor is on, after [QuietPeriod] of
//     silence, where the kernel cannot tell;
//   - whether the program serves (it listens on a port, or shows a
//     shortcut hint) rather than asks;
//
// and says what the prompt asks with its [Grammar]: one of the [Kinds]
// (a line, a password, a confirm with its choices and default, a menu
// with its items, a pager, an editor), read off the line and the rendered
// screen by [Classify].
//
// The probe reads /proc and so knows most on Linux; elsewhere the kernel's
// answer is [Unknown] and the marks and the line's shape decide.
package prompt
