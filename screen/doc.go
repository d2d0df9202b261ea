// Package screen turns the raw bytes a program writes to its terminal into
// what a person at that terminal would have seen: a clean, append-only text log
// (escape sequences removed, carriage-return and backspace redraws resolved)
// and, for full-screen programs, a rendered screen.
//
// Cleaner is our own streaming code and runs at PTY speed (hundreds of MB/s);
// Screen wraps vt10x, which is slower and fragile, behind a sanitiser, a
// UTF-8 carry and recover. Neither keeps package-level state.
//
// Concurrency: a Cleaner is not safe for concurrent use; its owner (one
// session.Process) serialises access under its own lock. A Screen has its own
// mutex, because vt10x must only be touched under one.
package screen
