// Package executor is the remote side of a yieldshell server: the same
// binary started on another host (`yieldshell executor`, over ssh) that
// runs the commands there under its own [pty.Reaper] and answers the
// input-wait probe from its own kernel ([prompt.Prober]), speaking
// package execproto to the server.
//
// An [Executor] outlives its connections. Each process's output is kept
// in a buffer per stream, with its sequence numbers, until it is sent and
// then for a while after (retain), so a server that reconnects says where
// it stood and gets the rest; while no connection is there, a buffer that
// holds cap unsent bytes stops reading the program, which then waits as
// it would at a terminal nobody reads. With no connection for Grace, the
// executor ends every tree it started and [Executor.Run] returns.
//
// Concurrency: one goroutine per connection reads requests, one sends the
// output (pump); each process has a reader per stream, a waiter and a
// writer that keeps its input in order. The Executor's mutex guards the
// process table and the buffers; Run joins everything it started.
package executor
