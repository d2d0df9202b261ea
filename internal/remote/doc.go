// Package remote runs commands on another host through an executor
// (package executor, the same binary started there): a [Client] is one
// host's connection, and gives the session its [session.Engine], whose
// processes proxy every call over the connection, and its
// [session.Prober], which asks the remote kernel. [Hosts] keeps one
// Client per host, reused, and is what the Manager is given.
//
// A Client reconnects on its own after a dropped connection while it has
// processes, and says in its hello where each output stream stood, so
// nothing is lost and nothing is read twice. A broken or hostile executor
// (a line that is not a message, one too long, a flood, silence) costs
// only its own connection: each call has a deadline, each process's
// output buffer is bounded, and what a message names that the Client does
// not know is dropped.
//
// Concurrency: each connection has one reading goroutine; the Client owns
// it and its reconnecting goroutine, and Close joins both.
package remote
