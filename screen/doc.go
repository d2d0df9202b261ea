// Package screen turns the raw bytes a program writes to its terminal into
// what a person at that terminal would have seen: a clean, append-only text log
// (escape sequences removed, carriage-return and backspace redraws resolved)
// and, for full-screen programs, a rendered screen.
//
// Concurrency: the types here are not safe for concurrent use; the owner (one
// session.Process) serialises access under its own lock.
package screen
