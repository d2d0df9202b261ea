// Package policy holds the server's configuration and every rule applied to a
// command before and while it runs: declared side effects, command regexes,
// working-directory roots, limits and output redaction.
//
// # Configuration
//
// Load reads each variable in Vars once, at start-up. A blank value means the
// default. Unlike mcp-yieldshell 0.4.0, which fell back to defaults on bad
// numbers and crashed on bad regexes, Load rejects every invalid value and
// reports all of them in one error that names the variable, the value and
// what is valid. Derived defaults follow the values they depend on (an unset
// YIELDSHELL_MAX_BUFFER_BYTES is raised to YIELDSHELL_MAX_OUTPUT_BYTES, an
// unset YIELDSHELL_DEFAULT_YIELD_MS is lowered to YIELDSHELL_MAX_YIELD_MS);
// explicitly set values that contradict each other are an error.
//
// # Checks
//
// Before a command starts, the caller applies, in the spec's order,
// CheckSideEffects, CheckCommand, ResolveCwd and CheckProcessLimit. Each
// refusal is a *Refusal whose Rule names the check and whose Message, written
// for the agent, says that nothing was started and what to do instead.
//
// The command regexes and the side-effect declaration are risk signals, not a
// sandbox: a regex is bypassed by quoting, and an agent can under-declare.
// ResolveCwd compares symlink-resolved paths by component, which closes
// 0.4.0's prefix and symlink escapes, but it cannot stop a directory being
// swapped between the check and the start.
//
// # The client's roots
//
// WithRoots gives the configuration in force for one client session, from
// the roots it declared (package roots resolves them): the first root as
// the default cwd unless YIELDSHELL_DEFAULT_CWD is set, and, with
// YIELDSHELL_ALLOWED_CWDS=roots, the roots as the allowed ones, refusing
// every cwd when there are none (roots.go).
//
// # Redaction
//
// Config.Secrets picks the values to hide from an environment; a Redactor
// replaces them in a byte stream as it is read, before anything is stored.
//
// # Concurrency
//
// A Config is built once by Load and is read-only afterwards, so it is safe
// for concurrent use. A Redactor is stateful and owned by one output stream.
// The package has no mutable package-level state.
package policy
