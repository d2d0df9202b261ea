// Package policy holds the server's configuration and every rule applied to a
// command before and while it runs: declared side effects, command regexes,
// working-directory roots, limits and output redaction.
//
// A Config is built once at start-up by Load and is read-only afterwards, so
// it is safe for concurrent use. A Redactor is stateful and owned by one
// output stream.
package policy
