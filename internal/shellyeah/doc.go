// Package shellyeah exposes the tools of mcp-shell-yeah (start_shell,
// check_shell, stop_shell, ...) with that server's parameter names and
// response fields, mapped onto the same session engine as yieldshell's own
// tools. It is registered when YIELDSHELL_TOOLSET is shell-yeah or all.
//
// Labels are process names (session.NormalizeName, in every tool);
// commands run under a pseudo-terminal through the server's shell (bash -c
// where installed, else /bin/sh -c; cmd.exe /c on Windows), with args
// shell-quoted after the command; logs are the clean, redacted log. The
// peer's bugs are not copied (reference/shell-yeah.md §9): crashes are
// "crashed" with their exit code, ended processes keep their record until
// purged, unknown labels are errors, verification sees output from the
// first byte and is bounded, and nothing orders the model about.
//
// One file per tool. Handlers are safe for concurrent use.
package shellyeah
