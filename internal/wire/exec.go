package wire

import "github.com/yieldshell/yieldshell/internal/mcptool"

// ExecIn is exec's input. Its schema is inferred from the tags, then
// patched where tags cannot say enough (see execSchema).
type ExecIn struct {
	Command        string            `json:"command" jsonschema:"The command line, run with bash -c (/bin/sh -c where bash is not installed, or the operator's YIELDSHELL_SHELL; cmd.exe /c on Windows) unless shell names another program."`
	SideEffects    []string          `json:"side_effects" jsonschema:"Every side-effect category the command may plausibly have; [\"NONE\"] for read-only commands (NONE is exclusive)."`
	Cwd            string            `json:"cwd,omitempty" jsonschema:"Working directory; relative paths are resolved against the default (YIELDSHELL_DEFAULT_CWD, else the client's first root; ps shows it). Must be inside the allowed roots when there are (YIELDSHELL_ALLOWED_CWDS, or the client's roots)."`
	Env            map[string]string `json:"env,omitempty" jsonschema:"Variables added to (or overriding) the server's environment."`
	Shell          string            `json:"shell,omitempty" jsonschema:"Program that runs the command with -c instead of the server's shell, e.g. \"zsh\" or \"sh\" (on Windows powershell, pwsh or Git Bash's bash instead of cmd.exe)."`
	Stdin          string            `json:"stdin,omitempty" jsonschema:"Text written to the command's input right after it starts. In PTY mode the terminal echoes it into the output unless the program has turned echo off already: never pass a password here; write it with write's wait_for_password."`
	CloseStdin     bool              `json:"close_stdin,omitempty" jsonschema:"End the input after stdin is written (EOF), for commands that read to end of input. Default false."`
	Name           string            `json:"name,omitempty" jsonschema:"A stable handle for the process (e.g. \"web\"): read, write, wait, stop and restart accept it in place of process_id, meaning the newest run under it. Compared case-insensitively, blanks as \"-\". Starting a second process under the name of one that is running is refused (use restart)."`
	YieldMs        *int              `json:"yield_ms,omitempty" jsonschema:"How long to wait for the command to finish before leaving it in the background."`
	TimeoutMs      *int              `json:"timeout_ms,omitempty" jsonschema:"Kill the command (its whole process group) after this long; 0 means no limit."`
	MaxOutputBytes *int              `json:"max_output_bytes,omitempty" jsonschema:"Most output bytes to return in this answer (capped by YIELDSHELL_MAX_OUTPUT_BYTES)."`
	TTY            *bool             `json:"tty,omitempty" jsonschema:"Run under a pseudo-terminal (default true) or with plain pipes, which keep stdout and stderr apart."`
	Cols           *int              `json:"cols,omitempty" jsonschema:"Terminal width (default 120)."`
	Rows           *int              `json:"rows,omitempty" jsonschema:"Terminal height (default 40)."`
	Host           string            `json:"host,omitempty" jsonschema:"Run the command on another host: an ssh destination as your ssh understands it ([user@]host, or a name from ~/.ssh/config; the operator may limit them with YIELDSHELL_HOSTS). yieldshell starts itself there over ssh (copied once to ~/.cache/yieldshell) and the process works as a local one: read, write (wait_for_password), wait, stop, ps. Its id and name end in @host; cwd is a directory on that host (default: the home directory there). ssh's own questions (host key, password) appear as the local process ssh@host, waiting for input."`
	// Long-running processes (longrun.go).
	WaitFor          *string `json:"wait_for,omitempty" jsonschema:"Regex (Go RE2) that means the command is up, e.g. \"Local:.*http\" for a dev server. exec answers as soon as a line of output matches (output from the very start counts), with yield_reason \"pattern\", verified true and the matched text; if the process exits first or wait_for_timeout_ms passes, verified is false and the process keeps running unless it exited. Replaces yield_ms."`
	WaitForTimeoutMs *int    `json:"wait_for_timeout_ms,omitempty" jsonschema:"How long to wait for wait_for (default 30000, capped like yield_ms)."`
	MaxRetries       *int    `json:"max_retries,omitempty" jsonschema:"Restart the process up to this many times in a row when it crashes (exits non-zero, or a signal we did not send kills it); stop never triggers it. Needs name. Default 0."`
	RetryDelayMs     *int    `json:"retry_delay_ms,omitempty" jsonschema:"Delay before the first crash restart (default 1000); it doubles for each further restart in a row. No restart comes sooner than 100 ms after the crash."`
	RetryMaxDelayMs  *int    `json:"retry_max_delay_ms,omitempty" jsonschema:"Cap of the doubling delay (default 30000)."`
	Sandbox          string  `json:"sandbox,omitempty" jsonschema:"Confine this command more tightly than the server does (never less): \"workspace-write\" (writes only in the allowed roots, its TMPDIR and the terminal) or \"read-only\" (only its TMPDIR and the terminal). Linux; see health's sandbox."`
	OnInput          string  `json:"on_input,omitempty" jsonschema:"What to do when the command waits for input within yield_ms: \"return\" (default) answers at once, backgrounded, with the prompt; \"fail\" stops the command the moment it asks (status \"failed\", ended_by \"input\") and answers with the prompt and its grammar (input_kind, choices, default, items): for commands that must not prompt."`
}

// ExecOut is exec's answer. Which fields are set depends on status.
type ExecOut struct {
	Status      string     `json:"status" jsonschema:"completed, backgrounded (still running: use process_id), timed_out, stopped, failed (on_input \"fail\": it waited for input and was stopped; ended_by \"input\") or failed_to_start (nothing ran; see error and rule)"`
	ProcessID   string     `json:"process_id,omitempty" jsonschema:"handle for read, write, wait and stop; set whenever a process started"`
	Pid         int        `json:"pid,omitempty" jsonschema:"operating-system process id (also the process group and session id)"`
	ExitCode    *int       `json:"exit_code" jsonschema:"exit status once the command ended (-N when signal N ended it); null while running"`
	Signal      *string    `json:"signal" jsonschema:"name of the signal that ended the command (e.g. SIGTERM), or null"`
	DurationMs  float64    `json:"duration_ms" jsonschema:"time from start to this answer (or to the end), in ms"`
	Stdout      *string    `json:"stdout,omitempty" jsonschema:"output text: in PTY mode the whole terminal output, cleaned of escape sequences"`
	Stderr      *string    `json:"stderr,omitempty" jsonschema:"standard error in pipe mode (tty: false); empty in PTY mode"`
	Truncated   bool       `json:"truncated" jsonschema:"some output was left out: cut by max_output_bytes or no longer retained"`
	NextSeq     *int64     `json:"next_seq,omitempty" jsonschema:"position after the returned output: pass it as since_seq to read to get only newer output"`
	YieldReason string     `json:"yield_reason,omitempty" jsonschema:"why exec returned: exited, detached (the command exited but processes it started still run, so it stays backgrounded), input_wait (the program waits for input; with on_input \"fail\" it was stopped for it), ready (a server is up: it listens and reads its terminal only for shortcut keys), yield_elapsed, timeout or cancelled"`
	EndedBy     string     `json:"ended_by,omitempty" jsonschema:"who ended the process: exit, signal, stop, timeout, shutdown or input (on_input \"fail\")"`
	TTY         *bool      `json:"tty,omitempty" jsonschema:"whether the command runs under a pseudo-terminal"`
	Message     string     `json:"message,omitempty" jsonschema:"what to do next"`
	Error       string     `json:"error,omitempty" jsonschema:"why the call failed and what to do instead"`
	Rule        string     `json:"rule,omitempty" jsonschema:"the policy rule that refused the command"`
	Screen      *ScreenOut `json:"screen,omitempty" jsonschema:"the rendered terminal, present while a full-screen program runs"`
	InputOut
	Notes []string `json:"notes,omitempty" jsonschema:"remarks about the end of the process, its input, or its terminal (replies to its queries that were dropped)"`
	Name  string   `json:"name,omitempty" jsonschema:"the process's name, normalised"`
	// ExistingProcessID is the running process that holds the name, when
	// the start was refused for that.
	ExistingProcessID string `json:"existing_process_id,omitempty" jsonschema:"when the name is taken: the running process that holds it (use restart or stop)"`
	PatternFields
	LongFields
	OmitFields
}

// SandboxOut is a confined process's sandbox in answers.
type SandboxOut struct {
	Mode        string          `json:"mode" jsonschema:"workspace-write, read-only or best-effort"`
	Network     string          `json:"network" jsonschema:"off (only Unix sockets), on, or hosts (only the hosts of YIELDSHELL_SANDBOX_NETWORK, through its proxy)"`
	NotEnforced []string        `json:"not_enforced,omitempty" jsonschema:"best-effort: what this kernel could not enforce"`
	Denied      []SandboxDenial `json:"denied" jsonschema:"what the kernel (or the host list's proxy) refused the command, first of each kind (bounded): op and path, address or host and port, with a count"`
}

// SandboxDenial is one kind of refusal.
type SandboxDenial struct {
	Op      string `json:"op"`
	Path    string `json:"path,omitempty"`
	Address string `json:"address,omitempty"`
	Host    string `json:"host,omitempty"`
	Port    int    `json:"port,omitempty"`
	Reason  string `json:"reason,omitempty"`
	Count   int    `json:"count"`
}

// Outcome is what the answer says for counting: its status, the rule that
// refused it and its wait for input.
func (o ExecOut) Outcome() mcptool.Outcome {
	oc := o.InputOut.Outcome()
	oc.Status, oc.Rule = o.Status, o.Rule
	return oc
}
