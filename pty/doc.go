// Package pty starts commands under a pseudo-terminal or plain pipes and
// follows them to their end: on Unix each in a session and process group
// of its own, on Windows in a job object of its own (under a pseudo
// console in PTY mode). It is the engine of yieldshell, usable by any Go
// program that runs commands for someone else.
//
// A [Reaper] starts commands ([Reaper.Start]) and collects their exit
// statuses. On Unix it does that on SIGCHLD with wait4(-1): it is the only
// thing in the process that waits for children, so children started
// through it must never be waited for by other means, other code in the
// same process must not start children it expects to wait for itself, and
// only one Reaper may exist at a time. Nothing process-wide happens behind
// its user's back: the SIGCHLD handler exists from [NewReaper] to
// [Reaper.Close], and the process becomes a child subreaper (adopting the
// orphans of its commands' trees, which the Reaper then reaps) only when
// its user calls [SetChildSubreaper].
//
// A [Process] is one command: its output ([Process.Stdout],
// [Process.Stderr]), its input ([Process.WriteInput], [Process.CloseInput]),
// its terminal ([Process.Resize], [Process.Modes], [Process.ForegroundPgrp])
// and its tree ([Process.SignalTree], [Process.AwaitTree]: the process
// group, and the descendants that left it but carry an environment tag).
//
// Concurrency: a Reaper and the Process values it starts are safe for
// concurrent use. Output readers are meant for one reading goroutine each.
//
// [Tagged], [StartTime] and [Alive] read what the process table knows, for
// finding what a server started before it crashed.
package pty
