package tools

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yieldshell/yieldshell/internal/answer"
	"github.com/yieldshell/yieldshell/internal/mcptool"
	"github.com/yieldshell/yieldshell/internal/policy"
	"github.com/yieldshell/yieldshell/internal/roots"
	"github.com/yieldshell/yieldshell/internal/session"
	"github.com/yieldshell/yieldshell/internal/wire"
	"github.com/yieldshell/yieldshell/prompt"
)

func execTool(cfg *policy.Config) *mcp.Tool {
	return &mcp.Tool{
		Name:        "exec",
		Title:       "Run a shell command",
		Description: execDescription(cfg),
		InputSchema: execSchema(cfg),
		Annotations: mcptool.Annotations("Run a shell command", mcptool.Runs),
	}
}

// kindList names every kind of input prompt tells, for the descriptions:
// "line, password, ... or editor".
func kindList() string {
	names := make([]string, 0, len(prompt.Kinds()))
	for _, k := range prompt.Kinds() {
		names = append(names, string(k))
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

func execDescription(cfg *policy.Config) string {
	bl := "none"
	if len(cfg.Rules.Blocked) > 0 {
		bl = effectList(cfg.Rules.Blocked)
	}
	return `Run a shell command (bash -c, or /bin/sh -c where bash is not installed; cmd.exe /c on Windows) under its own pseudo-terminal. A command that finishes within yield_ms answers at once with status "completed", its exit_code and output; one still running is left in the background and answers "backgrounded" with a process_id for read, write, wait and stop.

Example: {"command": "npm test", "side_effects": ["NONE"], "yield_ms": 10000}

It answers early, still "backgrounded", the moment the program waits for input (a REPL, a question, a password prompt): waiting_for_input is true, input_kind says what it asks (` + kindList() + `), prompt holds the prompt text, and choices, default, range, items and selected say how to answer: a confirm by typing one of choices (Enter alone takes default), a number within range ({min, max}, as the prompt shows it), a menu by moving from selected to the wanted item with Down (Right or Tab for dialog buttons) and pressing Enter, all in one write. Answer with write. A server that reads its terminal only for shortcut keys (a dev server's "press h + enter to show help") is not waiting: exec answers once it is up, with yield_reason "ready", ready true and the ports it listens on. on_input "fail" stops a command that must not prompt the moment it asks. Running an interactive shell (bash, zsh or fish) gives a persistent session: each command written to it with write and yield_ms answers when it finishes, with command_exit_code.

side_effects is required and must not be empty: declare every category the command may plausibly have, using the exact upper-case names of the enum. ["NONE"] is for read-only commands and is exclusive: it cannot be combined with another category. A declared category that the server blocks is refused with status "failed_to_start" before anything else is checked (command rules, cwd, the process limit) and nothing is started. Blocked by default: ` + effectList(policy.DefaultBlocked()) + `; on this server: ` + bl + `.
Examples: read-only ["NONE"]; editing workspace files ["MODIFIES_WORKSPACE_FILES"]; installing dependencies ["CHANGES_PACKAGES_OR_DEPENDENCIES", "MAKES_NETWORK_REQUESTS"]; network access ["MAKES_NETWORK_REQUESTS"]; deleting files ["DELETES_FILES"]; sudo ["RUNS_PRIVILEGED_COMMANDS"]; protected files ["MODIFIES_PROTECTED_FILES"]; dotfiles or per-user settings ["MODIFIES_OS_USER_SETTINGS"]; anything that could end the agent or its client ["KILLS_AGENT_PROCESS"].
RUNS_INLINE_CODE (python -c, node -e, heredocs piped into an interpreter, curl ... | sh) is blocked by default: write the code to a reviewable workspace file and run that file in a small, inspectable step instead.

Output: in PTY mode (the default; tty: false uses pipes) stdout carries the terminal's text with escape sequences removed and redraws resolved, and stderr is empty. Answers carry next_seq: pass it to read as since_seq to get only newer output. At most max_output_bytes (default and cap ` + fmt.Sprint(cfg.Limits.OutputBytes) + `) are returned per answer. Defaults: yield_ms ` + fmt.Sprint(cfg.Times.DefaultYield.Milliseconds()) + ` (max ` + fmt.Sprint(cfg.Times.MaxYield.Milliseconds()) + `), timeout_ms ` + fmt.Sprint(cfg.Times.DefaultTimeout.Milliseconds()) + ` (0 = none; on timeout the process group is killed and the status is "timed_out"), terminal ` + fmt.Sprintf("%dx%d", session.DefaultCols, session.DefaultRows) + `. stdin is written after start and stdin stays open unless close_stdin is true.`
}

// execSchema is ExecIn's inferred schema with what tags cannot express:
// side_effects items refer to one SideEffect definition (as 0.4.0's schema
// did) whose description says what is blocked, optional parameters accept
// null (0.4.0's clients send it), and the numeric bounds.
func execSchema(cfg *policy.Config) *jsonschema.Schema {
	s, err := jsonschema.For[wire.ExecIn](nil)
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
	if len(cfg.Rules.Blocked) > 0 {
		blocked = effectList(cfg.Rules.Blocked)
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

func (h *handlers) exec(ctx context.Context, req *mcp.CallToolRequest, in wire.ExecIn) (*mcp.CallToolResult, wire.ExecOut, error) {
	var waitFor *regexp.Regexp
	if in.WaitFor != nil && *in.WaitFor != "" {
		re, err := compilePattern("wait_for", *in.WaitFor)
		if err != nil {
			return mcptool.Error(wire.ExecOut{Status: statusFailedToStart, Error: err.Error() + "; nothing was started"})
		}
		waitFor = re
	}
	if in.OnInput != "" && in.OnInput != onInputReturn && in.OnInput != onInputFail {
		return mcptool.Error(wire.ExecOut{Status: statusFailedToStart, Error: `invalid on_input: use "return" or "fail"; nothing was started`})
	}
	start := time.Now()
	spec := h.execSpec(in)
	if spec.Host == "" && h.cfg.NeedsRoots(spec.Cwd) {
		r, ask := h.roots.For(ctx, req, h.cfg.Cwd.FromRoots)
		if ask != nil {
			return ask, wire.ExecOut{}, nil // the sessionless protocol: the retry carries the client's roots
		}
		spec.Roots = r
	}
	retried, err := h.human.Approved(req, &spec)
	if err != nil {
		return mcptool.Error(startFailure(err))
	}
	spec.ConnectApprover = h.connectApprover(req)
	widened, rerun := h.human.Widened(req, h.m, &spec)
	if rerun && !widened.Rerun {
		return keptAnswer(widened) // the person did not allow the writes (widen.go)
	}
	p, err := h.m.Start(ctx, spec)
	if err != nil {
		if ask := h.human.AskApproval(req, h.cfg, h.m, spec, err); ask != nil && !retried {
			return ask, wire.ExecOut{}, nil // YIELDSHELL_ASK: the user decides (askhuman/approve.go)
		}
		return mcptool.Error(startFailure(err))
	}
	q := h.Query(nil, in.MaxOutputBytes, session.Both)
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
	out.Notes = append(out.Notes, h.startNotes(spec, in.Cwd)...)
	return h.execEnded(req, spec, p, out, widened, rerun)
}

// startNotes are what an answer says of how its command was let start: a
// person's approval of what policy refused, and a cwd chosen without the
// client's roots.
func (h *handlers) startNotes(spec session.Spec, cwd string) []string {
	var notes []string
	if len(spec.Waived) > 0 {
		notes = append(notes, "the user allowed this command once, which policy refused ("+strings.Join(spec.Waived, ", ")+")")
	}
	if spec.Roots != nil && !h.cfg.Cwd.ExplicitDefault && !filepath.IsAbs(cwd) {
		if n := roots.Unknown(spec.Roots, h.cfg.Cwd.Default); n != "" {
			notes = append(notes, n)
		}
	}
	return notes
}

// The statuses exec answers besides a process's own ([session.Status]).
const (
	statusBackgrounded  = "backgrounded"    // still running after the yield
	statusFailedToStart = "failed_to_start" // refused, or could not start
)

// execSpec is what exec asks to start, with the server's defaults.
func (h *handlers) execSpec(in wire.ExecIn) session.Spec {
	timeout := h.cfg.Times.DefaultTimeout
	if in.TimeoutMs != nil {
		timeout = mcptool.Millis(max(*in.TimeoutMs, 0))
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
		Host:        in.Host,
		Restart:     restartPolicy(in),
		Sandbox:     in.Sandbox,
	}
}

// startFailure is exec's answer when nothing was started.
func startFailure(err error) wire.ExecOut {
	out := wire.ExecOut{Status: statusFailedToStart, Error: err.Error()}
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
	pf       wire.PatternFields
	restarts int // crash restarts a wait_for followed
}

// execAnswer is exec's answer once it stopped waiting, built from s, one
// snapshot of p.
func (h *handlers) execAnswer(p *session.Process, s session.Snapshot, start time.Time, waitFor *regexp.Regexp, y yielded) wire.ExecOut {
	stdout, stderr, of := answer.Text(s.Output)
	out := wire.ExecOut{
		ProcessID:   p.ID,
		Pid:         p.Pid,
		DurationMs:  millis(time.Since(start)),
		Stdout:      new(stdout),
		Stderr:      new(stderr),
		Truncated:   s.Evicted || s.Capped,
		NextSeq:     new(s.NextSeq),
		YieldReason: string(y.reason),
		TTY:         new(p.TTY),
		Screen:      answer.Screen(s.Output),
		Name:        p.Name,
	}
	out.PatternFields = y.pf
	out.OmitFields = of
	out.LongFields = h.Long(p, s)
	out.ExitCode, out.Signal = answer.ExitFields(s.Info)
	if s.Status == session.Running {
		out.Status = statusBackgrounded
		out.InputOut = answer.Input(s.Input)
		out.Message = runningMessage(y.reason, s.Input)
	} else {
		out.Status = string(s.Status)
		out.EndedBy = string(s.EndedBy)
		if s.Status == session.TimedOut {
			out.YieldReason = "timeout"
		}
		out.Notes = answer.EndNotes(s.Info)
		if s.EndedBy == session.EndedByInput {
			out.InputOut = answer.Input(y.asked)
			out.Message = inputFailMessage(y.asked)
		}
	}
	if s.StdinError != "" {
		out.Notes = append(out.Notes, "writing stdin failed: "+s.StdinError)
	}
	out.Notes = append(out.Notes, answer.ReplyNotes(s.Info)...)
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

// clampYield applies the spec's defaults to a requested yield_ms and clamps
// it to the maximum.
func (h *handlers) clampYield(reqMs *int) time.Duration {
	y := h.cfg.Times.DefaultYield
	if reqMs != nil {
		y = mcptool.Millis(max(*reqMs, 0))
	}
	return min(y, h.cfg.Times.MaxYield)
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
