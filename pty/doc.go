// Package pty starts commands under a pseudo-terminal or plain pipes, each in a
// session and process group of its own, and reaps them.
//
// It owns the child's file descriptors (the PTY master, or the three pipe ends
// the server keeps) and the SIGCHLD-driven [Reaper] that collects exit
// statuses. A Reaper is the only thing in the process that calls wait4: children started
// through it must never be waited for by other means, and other code in the
// same process must not start children it expects to wait for itself.
//
// Concurrency: a Reaper and the [Process] values it starts are safe for concurrent
// use. Output readers are meant for one reading goroutine each.
//
// [Tagged], [StartTime] and [SetChildSubreaper] read and set what the
// process table knows, for finding what a server started after a crash.
package pty
