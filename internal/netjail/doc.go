// Package netjail confines a command's network to one proxy, by the
// kernel: the command runs in a network namespace of its own (in a user
// namespace of its own, so that nothing it holds reaches the host's
// network), whose only interface is loopback, and the one thing it can
// connect to there is a listener on 127.0.0.1 that this server serves
// with a [netproxy.Proxy]. Every other TCP or UDP destination has no
// route; raw and packet sockets need capabilities the command does not
// have.
//
// The listener must be created inside the namespace, so the binary
// starts itself in a helper mode first ([Main], "yieldshell __netjail"):
// it reads the server's setup from an inherited Unix socket, brings
// loopback up, listens, hands the listening socket to the server, drops
// the capabilities it used, confines its thread as the setup says
// (sandbox.ConfineThread: the command's Landlock ruleset, no_new_privs and
// seccomp filter, whose notification listener it hands over too), sets
// the proxy variables and execs the command from that thread. The
// server's half is a [Jail]: [New] before the start, [Jail.Wrap],
// [Jail.Apply] and [Jail.Confine] on what is started, [Jail.Serve] once
// it has started (then [Jail.Monitor] names the command's denials),
// [Jail.Close] when it has ended.
//
// Linux only; elsewhere [New] fails with [ErrUnsupported].
package netjail

import "errors"

// HelperCommand is the subcommand the helper mode answers to: argv is
// "<exe> __netjail <fd> <path> <argv0> <args>...".
const HelperCommand = "__netjail"

// ErrUnsupported is New's error where there are no network namespaces.
var ErrUnsupported = errors.New("network sandbox: not supported on this system")
