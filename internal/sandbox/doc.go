// Package sandbox confines one command with the kernel: Landlock for the
// file system, TCP and scopes (signals, abstract sockets), no_new_privs,
// and a seccomp filter for what Landlock does not cover (io_uring, mount,
// namespaces, ptrace, sockets other than AF_UNIX when the network is off,
// file metadata). The server itself is never confined.
//
// How: [Start] runs the caller's fork on a goroutine that locks its OS
// thread, confines that thread and forks from it; the child inherits the
// thread's Landlock domain and seccomp filter, and the goroutine ends
// without unlocking, so the runtime discards the thread. No helper
// process runs in between (a Go re-exec costs milliseconds). A process
// that must confine itself instead (the network jail's helper, which
// makes namespaces the filter would refuse) calls [ConfineThread] on the
// thread that execs, and the server follows the listener it hands back
// with [Watch].
//
// Denials are named from the kernel: the seccomp filter hands writes,
// metadata changes, refused sockets and containment system calls to the
// server as user notifications (a [Monitor]), which reads their paths
// from the child's memory, decides as Landlock would (Landlock still
// enforces what it covers) and records each refusal by operation and
// path, bounded.
//
// Concurrency: a Monitor owns one goroutine that answers its child's
// notifications; Close stops and joins it. Probe and Start may be called
// from any goroutine.
package sandbox
