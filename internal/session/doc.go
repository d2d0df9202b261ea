// Package session manages the processes the server runs.
//
// A [Manager] applies policy, enforces the process limit, names processes
// and starts them. A [Process] owns one running command: its lifecycle, its
// sequence-numbered output log, and the goroutines that feed and reap it
// (one reader per output stream and one waiter), which it stops and joins
// in Close. In PTY mode it also owns the reply writer, which writes the
// terminal's replies to the program's queries to its input, only to the
// process group that asked while it is in the foreground and reading
// (replydeliver.go); it stops when the process ends and is joined then.
//
// In PTY mode the log follows the screen ([screen.NewTerminal]). The one
// rule for a row that can still change: it is committed to the log when
// it scrolls off the top of the screen, when the program ends, and when an
// answer to the agent is taken: a [Snapshot] without Query.Look (exec,
// read, wait, write, the shell-yeah answers with log lines; so also a
// program waiting for input), LogEnd (a wait's starting point), and an
// Await whose pattern matches text on the screen that is not in the log
// yet. Nothing else commits: whoever only looks (progress notifications,
// ps, metrics, a write's starting point, the log file) takes a snapshot
// with Query.Look, which reports the screen's rows in Output.Pending, so
// the log is a function of the program's output and of the answers, the
// same with or without a log directory. Between those moments a redraw (a
// progress display moving the cursor up) only changes the screen, so the
// log keeps the final state, not every frame. Committed text is never
// retracted and positions stay stable; a committed row drawn again is
// logged again at the next commit. A log file shows the screen's rows
// once the output has been quiet for timing.diskCommit, without
// committing them, so tail -F of it does not lag (logfile.go).
//
// Every answer is built from one [Snapshot], taken under one lock: the
// summary, the output, URLs, command exit codes and the input state, which
// is decided from that instant's view and asked once; a wait that ends on
// input-wait takes it with its verdict (Until.Answer).
//
// Every state change (output appended, exit, stop) is broadcast through a
// channel that is closed and replaced; [Process.Await] is the one blocking
// primitive over it, so exec, wait, write, stop and the disk writer block
// on it with no polling.
//
// # Files
//
// Each file has one job, and the files form layers: but for process.go
// with pipeline.go and stop.go, and manager.go with tag.go, no file uses a
// name declared in a file that uses one of its own.
//
//   - Leaves, which know no Process: lifecycle.go (every status, ending
//     and reason; a process's phase and what its end records; the
//     waiter's channels; the timing that paces ends, probes and
//     restarts), engine.go (what the session needs of the system: the
//     Engine, the processes it starts, the Prober), spec.go (what to
//     start, restart policies), pipeline.go (what turns output into the
//     log), termview.go, replies.go, urls.go, inputwait.go (what
//     input-wait detection follows), tag.go. The log itself is package
//     outlog, signals, keys and process trees are package pty, shell
//     integration is package shellinit, redaction is package policy
//     (docs/architecture.md).
//   - The Process: process.go (its fields and what reads them),
//     snapshot.go (what an answer is built from, the commands an
//     integrated shell finished), reader.go (the output readers), end.go
//     (the waiter: how a process ends), input.go (the observation
//     prompt's Detector decides input-wait from, and writing to it),
//     evidence.go (what the Detector asks when it needs it: the kernel,
//     the terminal, the screen, the log's tail), secrets.go (secrets typed into it), human.go and
//     approve.go (a person's pages and approvals), replydeliver.go,
//     await.go (the wait primitive), stop.go. tempdirs.go makes and
//     sweeps the server's temporary directories.
//   - The Manager: registry.go (ids, names, runs and pending crash
//     restarts: records, no supervision), retention.go (what is kept of
//     ended runs, and the janitor's pace), logfile.go (what package
//     disklog follows), manager.go (Options, the Manager, lookups,
//     shutdown), start.go (prepare, spawn, register: spawn asks the
//     engine to start the command and builds the Process around it,
//     which starts its goroutines; a crash restart is scheduled there,
//     since it starts a run), restart.go (restarts, and StopAll, which
//     cancels the pending ones).
//
// The Manager owns four kinds of goroutine, all joined by Shutdown: one
// per pending crash restart (ended early by Shutdown, which waits for them
// before it ends processes, so none can start one behind its back), the
// janitor that purges old records, the start-up sweep of what dead
// servers left behind (stopped between two processes), and, with a log
// directory, one writer per process that copies its clean log to disk and
// returns once the process has ended and everything is written. The
// engine, given in [Options], is the Manager's too: Shutdown closes it
// last.
//
// Concurrency: Manager and Process are safe for concurrent use. Lock order:
// Manager.mu before Process.mu; a Process calls back into the Manager (its
// end hooks) without its own lock.
package session
