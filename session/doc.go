// Package session manages the processes the server runs.
//
// A Manager is the registry: it applies policy, enforces the process limit,
// names processes and starts them. A Process owns one running command: its
// state machine, its sequence-numbered output log, and the goroutines that
// feed and reap it (one reader per output stream and one waiter), which it
// stops and joins in Close.
//
// Every state change (output appended, exit, stop) is broadcast to waiters
// through a channel that is closed and replaced, so exec, wait and write block
// on one primitive with no polling.
//
// Concurrency: Manager and Process are safe for concurrent use.
package session
