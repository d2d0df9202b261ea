package session

import (
	"sync/atomic"
	"time"

	"github.com/yieldshell/yieldshell/prompt"
)

// InputState says whether a program waits for input.
type InputState struct {
	Waiting bool
	Kind    prompt.Kind
	Signal  Signal
	Prompt  string // the prompt text: the line the cursor is on
	// Confidence says what a Waiting verdict rests on (Signal's
	// [Signal.Confidence]); "" when not Waiting.
	Confidence Confidence
	// Grammar is what the prompt asks (choices, default, menu items),
	// when Waiting; its Kind is Kind.
	Grammar prompt.Grammar
	// Ready: the program reads its terminal but serves (it listens on
	// Ports, or printed a shortcut hint); it is not Waiting.
	Ready bool
	Ports []int
	// relay, when Signal is SignalRelay: the inner terminal the reader
	// was seen on.
	relay *prompt.Relay
}

// AsksPassword reports whether the program waits for a password by what is
// known of it: the kind, or a prompt line that says so (a terminal that
// echoes makes it a line).
func (s InputState) AsksPassword() bool {
	return s.Waiting && (s.Kind == prompt.KindPassword || prompt.MaskedPassword(s.Prompt))
}

// TakesSecret reports whether a secret can be typed now: the program asks
// for a password and the kernel shows it blocked reading its input with
// the terminal's echo off (or reading a pipe, which does not echo), or,
// where the reader cannot be looked at, the terminal itself reads lines
// with its echo off (SignalTTYMode: sudo's prompt), or the reader of a
// terminal a relay holds, with neither terminal echoing (SignalRelay: a
// password prompt under script, tmux or screen). A password prompt seen
// only by its text (SignalQuiet: a program polling several descriptors, a
// remote prompt behind ssh, a line editor in raw mode) does not qualify:
// what is typed may be echoed.
func (s InputState) TakesSecret() bool {
	if !s.Waiting || s.Kind != prompt.KindPassword {
		return false
	}
	return s.Signal == SignalTTY || s.Signal == SignalStdin || s.Signal == SignalTTYMode || s.Signal == SignalRelay
}

// markState follows the shell-integration marks of a process.
type markState struct {
	atPrompt bool   // B seen, no C since
	running  bool   // C seen, no D since
	prompts  uint64 // B marks so far
	exits    uint64 // D marks with a code after a C
	prompt   string // the line when the newest B arrived
	// returns counts the marks of a shell coming back to its prompt (D,
	// A, B): a reply to a query read before one of them is not the line
	// editor's (deliverReply).
	returns uint64
}

// idle reports whether a shell with marks sits at its prompt or is
// printing it: it has shown a prompt, and no command runs. Its line editor
// is then what reads the terminal.
func (ms *markState) idle() bool { return ms.prompts > 0 && !ms.running }

// wrote is what a write changed, so that a wait after it does not take the
// state from before the write for an answer.
type wrote struct {
	at       time.Time
	outputs  uint64 // output reads before it
	prompts  uint64
	exits    uint64
	reader   prompt.Task // the thread that was blocked reading, if any
	switches uint64      // its context switches then
	// written: the write returned, so all of it is in the terminal or
	// the pipe.
	written bool
	// screen digests what the screen showed before it (screenKnown: under
	// a terminal), so that a redraw of the same is not taken for an answer.
	screen      uint64
	screenKnown bool
}

// mark applies one shell-integration mark; line returns the line the
// cursor is on, which a prompt-end mark records as the prompt.
func (t *inputTracker) mark(m prompt.Mark, line func() (string, bool)) {
	ms := &t.marks
	if m.Kind == 'A' || m.Kind == 'B' || m.Kind == 'D' {
		ms.returns++
	}
	switch m.Kind {
	case 'A':
		ms.atPrompt = false
	case 'B':
		ms.atPrompt = true
		ms.prompts++
		ms.prompt, _ = line()
	case 'C':
		ms.atPrompt, ms.running = false, true
	case 'D':
		if code, ok := m.ExitCode(); ok && ms.running {
			ms.exits++
			t.cmds.add(code)
		}
		ms.running = false
	}
}

// inputTracker is what input-wait detection follows of a process: its
// output's arrival, the shell-integration marks, the newest write, and the
// prober it asks. The Process guards it with its mutex (inFlight is also
// raised without it).
type inputTracker struct {
	prober Prober // the Manager's; with the engine's process, all it asks the kernel

	outputs    uint64    // appends so far
	lastOutput time.Time // when the newest output arrived; the start until then
	// inFlight counts readers holding output between the read from the
	// terminal (or pipe) and the log. Nobody judges input-wait while it is
	// not zero: the output may be the very prompt the program waits at.
	inFlight atomic.Int32
	marks    markState
	feeding  bool        // exec's stdin is still being written
	stdinErr error       // writing exec's stdin failed
	wrote    wrote       // the newest write
	reader   prompt.Task // the thread last seen blocked reading the input
	timed    timedWait   // the newest timed wait seen (timerNotTheLine)

	// cmds keeps the exit codes of D marks.
	cmds commandCodes
	// integrated: the process is a shell we integrated, so its pid is
	// the shell's own (a shell a command line starts may be a child of
	// the shell that ran the line instead: bash hands its process only to
	// a lone command, /bin/sh never).
	integrated bool
}

// timedWait is a thread seen in a timed wait on the input: its context
// switches then, the output reads so far, when its timer ends as far as
// known (between lo and hi), and whether that timer was seen before the
// newest output.
type timedWait struct {
	task     prompt.Task
	switches uint64
	outputs  uint64
	lo, hi   time.Time
	old      bool
}

// maxCodes bounds the exit codes kept: a write of more commands than that
// reports the newest.
const maxCodes = 256

// commandCodes keeps the exit codes of the commands an integrated shell
// finished, oldest first, the newest maxCodes of them.
type commandCodes struct {
	n     uint64 // commands finished so far
	codes []int  // the codes of the newest of them
}

// add records the end of a command.
func (c *commandCodes) add(code int) {
	c.n++
	if len(c.codes) == maxCodes {
		c.codes = append(c.codes[:0], c.codes[1:]...)
	}
	c.codes = append(c.codes, code)
}

// since returns the codes of the commands that finished after the first n,
// in order (the newest maxCodes when there were more).
func (c *commandCodes) since(n uint64) []int {
	if c.n <= n {
		return nil
	}
	k := min(c.n-n, uint64(len(c.codes)))
	return append([]int(nil), c.codes[uint64(len(c.codes))-k:]...)
}
