// Package screen turns the raw bytes a program writes to its terminal into
// what a person at that terminal would have seen: a clean, append-only text log
// and a rendered screen, and answers the queries a program asks its terminal.
// It is for any Go program that runs other programs under a pseudo-terminal
// (package pty) and wants to log or show what they print: Cleaner for the
// log, Screen for the screen, Stripper for piped output.
//
// Cleaner is our own streaming terminal: a row model of the normal screen
// (clean.go, rows.go) whose rows are committed to the log as they become
// final, with the replies to queries (reply.go) computed from its state and
// a table of what it does with every xterm-256color capability
// (terminfo.go). Its parser is in two halves, as in charmbracelet/x's ansi
// and vt: a tokenizer (token.go) turns bytes into tokens (text, controls,
// ESC, CSI and OSC sequences) and keeps what a split sequence needs across
// Writes, and dispatch.go gives each token its meaning, one function per
// family (controls, ESC, cursor, editing, modes, queries, OSC). Screen wraps vt10x, which is slower and fragile, behind a
// sanitiser, a UTF-8 carry and recover, and renders only when asked. Neither
// keeps package-level state.
//
// When the log takes a row: a row of the normal screen can change until it
// scrolls off the top (of the screen or of a scroll region), the screen is
// cleared (its rows are pushed up, as tmux does), or the owner commits
// (session commits when the program ended and whenever an answer looks at
// the log, so also when the program waits for input; an eager Cleaner also
// commits a row when a line feed leaves it). Committed text is never taken back; a committed
// row drawn again is logged again. Until then a read shows the committed log
// followed by Cleaner.Pending. The alternate screen is never logged.
//
// Concurrency: a Cleaner is not safe for concurrent use; its owner (one
// session.Process) serialises access under its own lock. A Screen has its own
// mutex, because vt10x must only be touched under one.
package screen
