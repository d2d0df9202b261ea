// Package resources serves every process's output as MCP resources: its
// log at yieldshell://process/{process_id}/log and its terminal at
// yieldshell://process/{process_id}/screen (log.go, screen.go), where a
// name works as well as an id. resources/read answers what the read tool
// answers, from the same snapshot (package tools' Reader): since_seq is a
// query parameter (.../log?since_seq=42). resources/list lists the running
// processes' resources, and a list_changed notification follows each start
// and end. A client that subscribes to a URI gets
// notifications/resources/updated when new output arrives (on the screen
// or in the log), at most one per [DefaultInterval] per process, and one
// at once when the process ends or starts waiting for input (follow.go).
// completion/complete offers process ids and names (complete.go).
//
// Every URI is input from the client: it is parsed strictly (uri.go) and
// only ever looked up in the Manager, never used as a path.
//
// Concurrency: a [Hub] owns one goroutine that follows the Manager's
// starts and ends, and one per followed process; Close stops and joins
// them all.
package resources
