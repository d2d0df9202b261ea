package tools

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yieldshell/yieldshell/internal/mcptool"
	"github.com/yieldshell/yieldshell/internal/policy"
	"github.com/yieldshell/yieldshell/internal/session"
)

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
	// Long-running processes (longrun.go).
	WaitFor          *string `json:"wait_for,omitempty" jsonschema:"Regex (Go RE2) that means the command is up, e.g. \"Local:.*http\" for a dev server. exec answers as soon as a line of output matches (output from the very start counts), with yield_reason \"pattern\", verified true and the matched text; if the process exits first or wait_for_timeout_ms passes, verified is false and the process keeps running unless it exited. Replaces yield_ms."`
	WaitForTimeoutMs *int    `json:"wait_for_timeout_ms,omitempty" jsonschema:"How long to wait for wait_for (default 30000, capped like yield_ms)."`
	MaxRetries       *int    `json:"max_retries,omitempty" jsonschema:"Restart the process up to this many times in a row when it crashes (exits non-zero, or a signal we did not send kills it); stop never triggers it. Needs name. Default 0."`
	RetryDelayMs     *int    `json:"retry_delay_ms,omitempty" jsonschema:"Delay before the first crash restart (default 1000); it doubles for each further restart in a row. No restart comes sooner than 100 ms after the crash."`
	RetryMaxDelayMs  *int    `json:"retry_max_delay_ms,omitempty" jsonschema:"Cap of the doubling delay (default 30000)."`
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
	patternFields
	longFields
	omitFields
}

func execTool(cfg *policy.Config) *mcp.Tool {
	return &mcp.Tool{
		Name:        "exec",
		Title:       "Run a shell command",
		Description: execDescription(cfg),
		InputSchema: execSchema(cfg),
		Annotations: mcptool.Annotations("Run a shell command", mcptool.Runs),
	}
}

func execDescription(cfg *policy.Config) string {
	bl := "none"
	if len(cfg.Blocked) > 0 {
		bl = effectList(cfg.Blocked)
	}
	return `Run a shell command (bash -c, or /bin/sh -c where bash is not installed; cmd.exe /c on Windows) under its own pseudo-terminal. A command that finishes within yield_ms answers at once with status "completed", its exit_code and output; one still running is left in the background and answers "backgrounded" with a process_id for read, write, wait and stop.

Example: {"command": "npm test", "side_effects": ["NONE"], "yield_ms": 10000}

It answers early, still "backgrounded", the moment the program waits for input (a REPL, a question, a password prompt): waiting_for_input is true, input_kind says what it asks (line, password, command, confirm, choice, continuation, pager or editor), prompt holds the prompt text, and choices, default, range, items and selected say how to answer: a confirm by typing one of choices (Enter alone takes default), a number within range ({min, max}, as the prompt shows it), a menu by moving from selected to the wanted item with Down (Right or Tab for dialog buttons) and pressing Enter, all in one write. Answer with write. A server that reads its terminal only for shortcut keys (a dev server's "press h + enter to show help") is not waiting: exec answers once it is up, with yield_reason "ready", ready true and the ports it listens on. on_input "fail" stops a command that must not prompt the moment it asks. Running an interactive shell (bash, zsh or fish) gives a persistent session: each command written to it with write and yield_ms answers when it finishes, with command_exit_code.

side_effects is required and must not be empty: declare every category the command may plausibly have, using the exact upper-case names of the enum. ["NONE"] is for read-only commands and is exclusive: it cannot be combined with another category. A declared category that the server blocks is refused with status "failed_to_start" before anything else is checked (command rules, cwd, the process limit) and nothing is started. Blocked by default: ` + effectList(policy.DefaultBlocked()) + `; on this server: ` + bl + `.
Examples: read-only ["NONE"]; editing workspace files ["MODIFIES_WORKSPACE_FILES"]; installing dependencies ["CHANGES_PACKAGES_OR_DEPENDENCIES", "MAKES_NETWORK_REQUESTS"]; network access ["MAKES_NETWORK_REQUESTS"]; deleting files ["DELETES_FILES"]; sudo ["RUNS_PRIVILEGED_COMMANDS"]; protected files ["MODIFIES_PROTECTED_FILES"]; dotfiles or per-user settings ["MODIFIES_OS_USER_SETTINGS"]; anything that could end the agent or its client ["KILLS_AGENT_PROCESS"].
RUNS_INLINE_CODE (python -c, node -e, heredocs piped into an interpreter, curl ... | sh) is blocked by default: write the code to a reviewable workspace file and run that file in a small, inspectable step instead.

Output: in PTY mode (the default; tty: false uses pipes) stdout carries the terminal's text with escape sequences removed and redraws resolved, and stderr is empty. Answers carry next_seq: pass it to read as since_seq to get only newer output. At most max_output_bytes (default and cap ` + fmt.Sprint(cfg.MaxOutputBytes) + `) are returned per answer. Defaults: yield_ms ` + fmt.Sprint(cfg.DefaultYield.Milliseconds()) + ` (max ` + fmt.Sprint(cfg.MaxYield.Milliseconds()) + `), timeout_ms ` + fmt.Sprint(cfg.DefaultTimeout.Milliseconds()) + ` (0 = none; on timeout the process group is killed and the status is "timed_out"), terminal ` + fmt.Sprintf("%dx%d", session.DefaultCols, session.DefaultRows) + `. stdin is written after start and stdin stays open unless close_stdin is true.`
}

// execSchema is ExecIn's inferred schema with what tags cannot express:
// side_effects items refer to one SideEffect definition (as 0.4.0's schema
// did) whose description says what is blocked, optional parameters accept
// null (0.4.0's clients send it), and the numeric bounds.
func execSchema(cfg *policy.Config) *jsonschema.Schema {
	s, err := jsonschema.For[ExecIn](nil)
	if err != nil {
		panic(fmt.Sprintf("exec input schema: %v", err)) // a programming error in ExecIn's tags
	}
	s.Defs = map[string]*jsonschema.Schema{"SideEffect": {
		Type:        "string",
		Title:       "SideEffect",
		Enum:        anySlice(policy.SideEffectNames()),
		Description: sideEffectDescription(cfg),
	}}
	effects := s.Properties["side_effects"]
	effects.Types, effects.Type = nil, "array" // required: never null
	effects.Items = &jsonschema.Schema{Ref: "#/$defs/SideEffect"}
	for name, p := range s.Properties {
		if slices.Contains(s.Required, name) {
			continue
		}
		if p.Type != "" {
			p.Types, p.Type = []string{p.Type, "null"}, ""
		}
	}
	for _, name := range []string{"wait_for_timeout_ms", "max_retries", "retry_delay_ms", "retry_max_delay_ms"} {
		s.Properties[name].Minimum = new(0.0)
	}
	for _, name := range []string{"cols", "rows"} {
		s.Properties[name].Minimum, s.Properties[name].Maximum = new(2.0), new(1000.0)
	}
	return s
}

// sideEffectDescription describes the categories: which ones 0.4.0 blocks
// by default and which this server blocks.
func sideEffectDescription(cfg *policy.Config) string {
	blocked := "none"
	if len(cfg.Blocked) > 0 {
		blocked = effectList(cfg.Blocked)
	}
	return "A category of side effect a command may have. NONE means read-only and cannot be combined with another. " +
		"Blocked by default: " + effectList(policy.DefaultBlocked()) + " (MCP_YIELDSHELL_BLOCKED_SIDE_EFFECTS changes the list). " +
		"Blocked on this server: " + blocked + ". A blocked category is refused with failed_to_start and nothing runs."
}

// effectList lists es for a reader.
func effectList(es []policy.SideEffect) string {
	names := make([]string, len(es))
	for i, e := range es {
		names[i] = string(e)
	}
	return strings.Join(names, ", ")
}

func anySlice[T any](xs []T) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}

func (h *handlers) exec(ctx context.Context, req *mcp.CallToolRequest, in ExecIn) (*mcp.CallToolResult, ExecOut, error) {
	var waitFor *regexp.Regexp
	if in.WaitFor != nil && *in.WaitFor != "" {
		re, err := compilePattern("wait_for", *in.WaitFor)
		if err != nil {
			return mcptool.Error(ExecOut{Status: statusFailedToStart, Error: err.Error() + "; nothing was started"})
		}
		waitFor = re
	}
	if in.OnInput != "" && in.OnInput != onInputReturn && in.OnInput != onInputFail {
		return mcptool.Error(ExecOut{Status: statusFailedToStart, Error: fmt.Sprintf("invalid on_input %q: use \"return\" or \"fail\"; nothing was started", in.OnInput)})
	}
	start := time.Now()
	spec := h.execSpec(in)
	if h.cfg.NeedsRoots(spec.Cwd) {
		r, ask := h.roots.For(ctx, req, h.cfg.CwdsFromRoots)
		if ask != nil {
			return ask, ExecOut{}, nil // the sessionless protocol: the retry carries the client's roots
		}
		spec.Roots = r
	}
	approved, retried, err := h.human.Approved(req, spec)
	if err != nil {
		return mcptool.Error(startFailure(err))
	}
	spec.Waived = approved
	p, err := h.m.Start(ctx, spec)
	if err != nil {
		if ask := h.human.AskApproval(req, h.cfg, h.m, spec, err); ask != nil && !retried {
			return ask, ExecOut{}, nil // YIELDSHELL_ASK: the user decides (askhuman/approve.go)
		}
		return mcptool.Error(startFailure(err))
	}
	q := h.answerQuery(nil, in.MaxOutputBytes, session.Both)
	q.Input = session.InputNow
	y := yielded{reason: session.ReasonYield}
	var o session.Outcome
	stopProgress := h.progress(ctx, req, p)
	if waitFor != nil {
		p, y.reason, y.pf, y.restarts = h.verifyStart(ctx, p, waitFor, h.waitForLimit(in.WaitForTimeoutMs))
	} else if yield := h.clampYield(in.YieldMs); yield > 0 {
		o = p.Await(ctx, start.Add(yield), session.Until{InputWait: true, Detached: true, Ready: true, Answer: &q})
		y.reason, y.asked = o.Reason, o.Input
		if y.reason == session.ReasonDeadline {
			y.reason = session.ReasonYield
		}
		if y.reason == session.ReasonInputWait && in.OnInput == onInputFail {
			_, _ = p.StopForInput(ctx, onInputGrace) // the answer reports the end, whatever it was
			o.Snapshot = nil                         // the answer is of the end
		}
	}
	stopProgress()
	out := h.execAnswer(p, p.After(o, q), start, waitFor, y)
	if len(approved) > 0 {
		out.Notes = append(out.Notes, "the user allowed this command once, which policy refused ("+strings.Join(approved, ", ")+")")
	}
	return mcptool.Linked(mcptool.LogLink(p.ID, p.Name)), out, nil
}

// The statuses exec answers besides a process's own ([session.Status]).
const (
	statusBackgrounded  = "backgrounded"    // still running after the yield
	statusFailedToStart = "failed_to_start" // refused, or could not start
)

// execSpec is what exec asks to start, with the server's defaults.
func (h *handlers) execSpec(in ExecIn) session.Spec {
	timeout := h.cfg.DefaultTimeout
	if in.TimeoutMs != nil {
		timeout = ms(max(*in.TimeoutMs, 0))
	}
	tty := h.cfg.TTY
	if in.TTY != nil {
		tty = *in.TTY
	}
	return session.Spec{
		Command:     in.Command,
		SideEffects: in.SideEffects,
		Cwd:         in.Cwd,
		Env:         in.Env,
		Shell:       in.Shell,
		Stdin:       in.Stdin,
		CloseStdin:  in.CloseStdin,
		Name:        in.Name,
		Timeout:     timeout,
		TTY:         tty,
		Cols:        uint16(deref(in.Cols)),
		Rows:        uint16(deref(in.Rows)),
		Restart:     restartPolicy(in),
	}
}

// startFailure is exec's answer when nothing was started.
func startFailure(err error) ExecOut {
	out := ExecOut{Status: statusFailedToStart, Error: err.Error()}
	if r, ok := errors.AsType[*policy.Refusal](err); ok {
		out.Rule = r.Rule
	}
	if id, ok := nameInUse(err); ok {
		out.Rule, out.ExistingProcessID = "name", id
	}
	return out
}

// yielded is why exec stopped waiting, with what the wait found.
type yielded struct {
	reason   session.Reason
	asked    session.InputState // what a wait that ended on input saw
	pf       patternFields
	restarts int // crash restarts a wait_for followed
}

// execAnswer is exec's answer once it stopped waiting, built from s, one
// snapshot of p.
func (h *handlers) execAnswer(p *session.Process, s session.Snapshot, start time.Time, waitFor *regexp.Regexp, y yielded) ExecOut {
	stdout, stderr, of := answerText(s.Output)
	out := ExecOut{
		ProcessID:   p.ID,
		Pid:         p.Pid,
		DurationMs:  millis(time.Since(start)),
		Stdout:      new(stdout),
		Stderr:      new(stderr),
		Truncated:   s.Evicted || s.Capped,
		NextSeq:     new(s.NextSeq),
		YieldReason: string(y.reason),
		TTY:         new(p.TTY),
		Screen:      screenOut(s.Output),
		Name:        p.Name,
	}
	out.patternFields = y.pf
	out.omitFields = of
	out.longFields = h.long(p, s)
	out.ExitCode, out.Signal = exitFields(s.Info)
	if s.Status == session.Running {
		out.Status = statusBackgrounded
		out.InputOut = inputOut(s.Input)
		out.Message = runningMessage(y.reason, s.Input)
	} else {
		out.Status = string(s.Status)
		out.EndedBy = string(s.EndedBy)
		if s.Status == session.TimedOut {
			out.YieldReason = "timeout"
		}
		out.Notes = endNotes(s.Info)
		if s.EndedBy == session.EndedByInput {
			out.InputOut = inputOut(y.asked)
			out.Message = inputFailMessage(y.asked)
		}
	}
	if s.StdinError != "" {
		out.Notes = append(out.Notes, "writing stdin failed: "+s.StdinError)
	}
	out.Notes = append(out.Notes, replyNotes(s.Info)...)
	out.Notes = append(out.Notes, h.verifyNotes(p, waitFor, y.reason, s.Info, y.restarts)...)
	return out
}

// runningMessage tells the agent what to do with a command that runs on.
func runningMessage(reason session.Reason, st session.InputState) string {
	switch {
	case st.Waiting:
		return "The command is waiting for input (" + string(st.Kind) + "). Answer it with write (input, newline: true; yield_ms to get the reply), or end it with stop."
	case st.Ready:
		return "The command is up: it serves (listening on ports, or showing shortcut keys) and reads its terminal only for those keys; it is not waiting for input. Use read, wait (with until) or stop with this process_id."
	case reason == session.ReasonDetached:
		return "The command exited, but processes it started still run (in its process group, or started from it); they stay managed under this process_id until they end: read, wait or stop them."
	}
	return "The command is still running in the background. Use read (with since_seq = next_seq), write, wait or stop with this process_id."
}

// endNotes explains the end of a process when something about it needs
// saying.
func endNotes(in session.Info) []string {
	if in.OutputLeftOpen {
		return []string{"the command exited but a process it started still holds its output open; later output from it is in read"}
	}
	return nil
}

// replyNotes says when the terminal dropped replies to the program's
// queries: it is then running on guesses (cursor position, colours).
func replyNotes(in session.Info) []string {
	if in.DroppedReplies == 0 {
		return nil
	}
	return []string{fmt.Sprintf("%d replies to terminal queries were dropped: the program sent queries (such as cursor position) faster than it read its input", in.DroppedReplies)}
}

// clampYield applies the spec's defaults to a requested yield_ms and clamps
// it to the maximum.
func (h *handlers) clampYield(reqMs *int) time.Duration {
	y := h.cfg.DefaultYield
	if reqMs != nil {
		y = ms(max(*reqMs, 0))
	}
	return min(y, h.cfg.MaxYield)
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
