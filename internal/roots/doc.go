// Package roots learns the client's roots (MCP roots: the directories a
// client says it works in, as file:// URIs) for each client session, and
// turns them into a [policy.Roots] for that session's calls.
//
// # Where roots come from
//
// A client that declared the roots capability at initialize is asked
// roots/list as soon as it says it is initialized, and again whenever it
// sends notifications/roots/list_changed (Tracker.Initialized,
// Tracker.ListChanged). A tool call that needs them (exec, start_shell)
// while the first answer is still on its way waits for it, bounded by
// firstAnswerWait and the call's context. A call that finds the last
// answer failed asks again, in its own name: over HTTP that request
// travels on the call's response stream, which the client reads, where
// the server's own request at initialized needs the client's GET stream,
// which clients open after initialized (the TypeScript SDK, Inspector)
// or never. On the sessionless protocol
// (2026-07-28), where a server may not send requests of its own, a call
// that cannot be decided without roots (commands confined to them)
// answers with an input request for roots/list instead, and its retry
// carries them; the answer is kept for the session (over stdio, one for
// the whole connection) until list_changed. Calls for which roots would
// only choose the default cwd do not ask on that protocol: over HTTP each
// of its requests is a session of its own, and every call would pay a
// round trip.
//
// # What is accepted
//
// The list is input a hostile client controls. Parse accepts only
// file:// URIs with no host (or localhost), an absolute path, no query or
// fragment, no encoded separator or NUL, no "." or ".." segment. Resolve
// then follows symlinks as the cwd checks do, keeps existing directories
// other than the file system's root, drops duplicates, and keeps at most
// MaxRoots. Every root refused is logged with the reason.
//
// # Concurrency
//
// A Tracker is safe for concurrent use. It owns one goroutine per
// roots/list in flight; Close cancels and joins them. Sessions are held
// weakly: an entry goes when its session is collected.
package roots
