// Package session manages the processes the server runs.
//
// A Manager is the registry: it applies policy, enforces the process limit,
// names processes and starts them. A Process owns one running command: its
// state machine, its sequence-numbered output log, and the goroutines that
// feed and reap it (one reader per output stream and one waiter), which it
// stops and joins in Close. In PTY mode it also owns the reply writer
// (replies.go), which writes the terminal's replies to the program's
// queries to its input; it stops when the process ends and is joined then.
//
// In PTY mode the log follows the screen (screen.NewTerminal): a row that
// can still change is committed to the log when it scrolls off the top of
// the screen, when the program ends, and whenever someone looks: every
// answer built from a Snapshot (exec, read, wait, write, so also a program
// waiting for input), LogEnd (a wait's starting point), URLs, and an Await
// whose pattern matches text on the screen that is not in the log yet.
// Between those moments a redraw (a progress display moving the cursor up)
// only changes the screen, so the log keeps the final state, not every
// frame. Committed text is never retracted and positions stay stable; a
// committed row drawn again is logged again at the next commit. A read of
// a running program therefore shows all of its screen (the read commits
// it). A log file also commits once the output has been quiet for
// timing.diskCommit (logSince), so tail -F of it does not lag.
//
// Every state change (output appended, exit, stop) is broadcast to waiters
// through a channel that is closed and replaced, so exec, wait and write block
// on one primitive with no polling.
//
// For long-running processes the Manager also keeps, per name, the run
// history and a pending crash restart (names.go, restart.go), and owns three
// kinds of goroutine, all joined by Shutdown: one per pending crash restart
// (ended early by Shutdown, which waits for them before it ends processes,
// so none can start one behind its back), the janitor that purges old
// records (purge.go), and, with a log directory, one writer per process
// that copies its clean log to disk (disklog.go) and returns once the
// process has ended and everything is written.
//
// Concurrency: Manager and Process are safe for concurrent use. Lock order:
// Manager.mu before Process.mu; a Process calls back into the Manager (its
// end callback) without its own lock.
package session
