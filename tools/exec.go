package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yieldshell/yieldshell/policy"
	"github.com/yieldshell/yieldshell/session"
)

// ExecIn is exec's input.
type ExecIn struct {
	Command        string            `json:"command"`
	SideEffects    []string          `json:"side_effects"`
	Cwd            string            `json:"cwd,omitempty"`
	Env            map[string]string `json:"env,omitempty"`
	Shell          string            `json:"shell,omitempty"`
	Stdin          string            `json:"stdin,omitempty"`
	CloseStdin     bool              `json:"close_stdin,omitempty"`
	Name           string            `json:"name,omitempty"`
	YieldMs        *int              `json:"yield_ms,omitempty"`
	TimeoutMs      *int              `json:"timeout_ms,omitempty"`
	MaxOutputBytes *int              `json:"max_output_bytes,omitempty"`
	TTY            *bool             `json:"tty,omitempty"`
	Cols           *int              `json:"cols,omitempty"`
	Rows           *int              `json:"rows,omitempty"`
	// Long-running processes (longrun.go).
	WaitFor          *string `json:"wait_for,omitempty"`
	WaitForTimeoutMs *int    `json:"wait_for_timeout_ms,omitempty"`
	MaxRetries       *int    `json:"max_retries,omitempty"`
	RetryDelayMs     *int    `json:"retry_delay_ms,omitempty"`
	RetryMaxDelayMs  *int    `json:"retry_max_delay_ms,omitempty"`
}

// ExecOut is exec's answer. Which fields are set depends on status.
type ExecOut struct {
	Status      string     `json:"status"`
	ProcessID   string     `json:"process_id,omitempty"`
	Pid         int        `json:"pid,omitempty"`
	ExitCode    *int       `json:"exit_code"`
	Signal      *string    `json:"signal"`
	DurationMs  float64    `json:"duration_ms"`
	Stdout      *string    `json:"stdout,omitempty"`
	Stderr      *string    `json:"stderr,omitempty"`
	Truncated   bool       `json:"truncated"`
	NextSeq     *int64     `json:"next_seq,omitempty"`
	YieldReason string     `json:"yield_reason,omitempty"`
	EndedBy     string     `json:"ended_by,omitempty"`
	TTY         *bool      `json:"tty,omitempty"`
	Message     string     `json:"message,omitempty"`
	Error       string     `json:"error,omitempty"`
	Rule        string     `json:"rule,omitempty"`
	Screen      *ScreenOut `json:"screen,omitempty"`
	Notes       []string   `json:"notes,omitempty"`
	Name        string     `json:"name,omitempty"`
	// ExistingProcessID is the running process that holds the name, when
	// the start was refused for that.
	ExistingProcessID string `json:"existing_process_id,omitempty"`
	patternFields
	longFields
}

func execTool(cfg *policy.Config) *mcp.Tool {
	return &mcp.Tool{
		Name:        "exec",
		Title:       "Run a shell command",
		Description: execDescription(cfg),
		InputSchema: execSchema(),
		Annotations: annotations("Run a shell command", false, true, false, true),
	}
}

func execDescription(cfg *policy.Config) string {
	blocked := make([]string, len(cfg.Blocked))
	for i, b := range cfg.Blocked {
		blocked[i] = string(b)
	}
	bl := "none"
	if len(blocked) > 0 {
		bl = strings.Join(blocked, ", ")
	}
	return `Run a shell command (/bin/sh -c) under its own pseudo-terminal. A command that finishes within yield_ms answers at once with status "completed", its exit_code and output; one still running is left in the background and answers "backgrounded" with a process_id for read, write, wait and stop.

Example: {"command": "npm test", "side_effects": ["NONE"], "yield_ms": 10000}

side_effects is required and must not be empty: declare every category the command may plausibly have, using the exact upper-case names of the enum. ["NONE"] is for read-only commands and is exclusive: it cannot be combined with another category. A declared category that the server blocks is refused with status "failed_to_start" before anything else is checked (command rules, cwd, the process limit) and nothing is started. Blocked on this server: ` + bl + `.
Examples: read-only ["NONE"]; editing workspace files ["MODIFIES_WORKSPACE_FILES"]; installing dependencies ["CHANGES_PACKAGES_OR_DEPENDENCIES", "MAKES_NETWORK_REQUESTS"]; network access ["MAKES_NETWORK_REQUESTS"]; deleting files ["DELETES_FILES"]; sudo ["RUNS_PRIVILEGED_COMMANDS"]; protected files ["MODIFIES_PROTECTED_FILES"]; dotfiles or per-user settings ["MODIFIES_OS_USER_SETTINGS"]; anything that could end the agent or its client ["KILLS_AGENT_PROCESS"].
RUNS_INLINE_CODE (python -c, node -e, heredocs piped into an interpreter, curl ... | sh) is blocked by default: write the code to a reviewable workspace file and run that file in a small, inspectable step instead.

Output: in PTY mode (the default; tty: false uses pipes) stdout carries the terminal's text with escape sequences removed and redraws resolved, and stderr is empty. Answers carry next_seq: pass it to read as since_seq to get only newer output. At most max_output_bytes (default and cap ` + fmt.Sprint(cfg.MaxOutputBytes) + `) are returned per answer. Defaults: yield_ms ` + fmt.Sprint(cfg.DefaultYieldMs) + ` (max ` + fmt.Sprint(cfg.MaxYieldMs) + `), timeout_ms ` + fmt.Sprint(cfg.DefaultTimeoutMs) + ` (0 = none; on timeout the process group is killed and the status is "timed_out"), terminal 120x40. stdin is written after start and stdin stays open unless close_stdin is true.`
}

// execSchema is written by hand because side_effects needs its enum, which
// the SDK's schema inference cannot express.
func execSchema() json.RawMessage {
	names := policy.AllSideEffects()
	enum, _ := json.Marshal(names) // []string-like: cannot fail
	return json.RawMessage(`{
  "type": "object",
  "required": ["command", "side_effects"],
  "additionalProperties": false,
  "properties": {
    "command": {"type": "string", "description": "The command line, run with /bin/sh -c."},
    "side_effects": {"type": "array", "items": {"type": "string", "enum": ` + string(enum) + `},
      "description": "Every side-effect category the command may plausibly have; [\"NONE\"] for read-only commands (NONE is exclusive)."},
    "cwd": {"type": ["string", "null"], "description": "Working directory; relative paths are resolved against YIELDSHELL_DEFAULT_CWD. Must be inside YIELDSHELL_ALLOWED_CWDS when that is set."},
    "env": {"type": ["object", "null"], "additionalProperties": {"type": "string"}, "description": "Variables added to (or overriding) the server's environment."},
    "shell": {"type": ["string", "null"], "description": "Program that runs the command with -c instead of /bin/sh, e.g. \"bash\"."},
    "stdin": {"type": ["string", "null"], "description": "Text written to the command's input right after it starts."},
    "close_stdin": {"type": ["boolean", "null"], "description": "End the input after stdin is written (EOF), for commands that read to end of input. Default false."},
    "name": {"type": ["string", "null"], "description": "A stable handle for the process (e.g. \"web\"): read, write, wait, stop and restart accept it in place of process_id, meaning the newest run under it. Compared case-insensitively, blanks as \"-\". Starting a second process under the name of one that is running is refused (use restart)."},
    "wait_for": {"type": ["string", "null"], "description": "Regex (Go RE2) that means the command is up, e.g. \"Local:.*http\" for a dev server. exec answers as soon as a line of output matches (output from the very start counts), with yield_reason \"pattern\", verified true and the matched text; if the process exits first or wait_for_timeout_ms passes, verified is false and the process keeps running unless it exited. Replaces yield_ms."},
    "wait_for_timeout_ms": {"type": ["integer", "null"], "minimum": 0, "description": "How long to wait for wait_for (default 30000, capped like yield_ms)."},
    "max_retries": {"type": ["integer", "null"], "minimum": 0, "description": "Restart the process up to this many times in a row when it crashes (exits non-zero, or a signal we did not send kills it); stop never triggers it. Needs name. Default 0."},
    "retry_delay_ms": {"type": ["integer", "null"], "minimum": 0, "description": "Delay before the first crash restart (default 1000); it doubles for each further restart in a row."},
    "retry_max_delay_ms": {"type": ["integer", "null"], "minimum": 0, "description": "Cap of the doubling delay (default 30000)."},
    "yield_ms": {"type": ["integer", "null"], "description": "How long to wait for the command to finish before leaving it in the background."},
    "timeout_ms": {"type": ["integer", "null"], "description": "Kill the command (its whole process group) after this long; 0 means no limit."},
    "max_output_bytes": {"type": ["integer", "null"], "description": "Most output bytes to return in this answer (capped by YIELDSHELL_MAX_OUTPUT_BYTES)."},
    "tty": {"type": ["boolean", "null"], "description": "Run under a pseudo-terminal (default true) or with plain pipes, which keep stdout and stderr apart."},
    "cols": {"type": ["integer", "null"], "minimum": 2, "maximum": 1000, "description": "Terminal width (default 120)."},
    "rows": {"type": ["integer", "null"], "minimum": 2, "maximum": 1000, "description": "Terminal height (default 40)."}
  }
}`)
}

func (h *handlers) exec(ctx context.Context, req *mcp.CallToolRequest, in ExecIn) (*mcp.CallToolResult, ExecOut, error) {
	yield := time.Duration(h.clampYield(in.YieldMs)) * time.Millisecond
	timeout := h.cfg.DefaultTimeoutMs
	if in.TimeoutMs != nil {
		timeout = max(*in.TimeoutMs, 0)
	}
	tty := h.cfg.TTY
	if in.TTY != nil {
		tty = *in.TTY
	}
	spec := session.Spec{
		Command:     in.Command,
		SideEffects: in.SideEffects,
		Cwd:         in.Cwd,
		Env:         in.Env,
		Shell:       in.Shell,
		Stdin:       in.Stdin,
		CloseStdin:  in.CloseStdin,
		Name:        in.Name,
		Timeout:     time.Duration(timeout) * time.Millisecond,
		TTY:         tty,
		Cols:        uint16(deref(in.Cols)),
		Rows:        uint16(deref(in.Rows)),
		Restart:     restartPolicy(in),
	}
	var waitFor *regexp.Regexp
	if in.WaitFor != nil && *in.WaitFor != "" {
		re, err := compilePattern("wait_for", *in.WaitFor)
		if err != nil {
			return toolError(ExecOut{Status: "failed_to_start", Error: err.Error() + "; nothing was started"})
		}
		waitFor = re
	}
	start := time.Now()
	p, err := h.m.Start(ctx, spec)
	if err != nil {
		out := ExecOut{Status: "failed_to_start", Error: err.Error()}
		if r, ok := errors.AsType[*policy.Refusal](err); ok {
			out.Rule = r.Rule
		}
		if id, ok := nameInUse(err); ok {
			out.Rule, out.ExistingProcessID = "name", id
		}
		return toolError(out)
	}
	reason := session.ReasonYield
	var pf patternFields
	restarts := 0
	if waitFor != nil {
		p, reason, pf, restarts = h.verifyStart(ctx, p, waitFor, h.waitForLimit(in.WaitForTimeoutMs))
	} else if yield > 0 {
		reason = p.WaitEnd(ctx, start.Add(yield))
		if reason == session.ReasonDeadline {
			reason = session.ReasonYield
		}
	}
	info, o := p.Snapshot(session.Query{MaxBytes: h.outputCap(in.MaxOutputBytes), Streams: session.Both})
	out := ExecOut{
		ProcessID:   p.ID,
		Pid:         p.Pid,
		DurationMs:  millis(time.Since(start)),
		Stdout:      ptr(text(o.Stdout)),
		Stderr:      ptr(text(o.Stderr)),
		Truncated:   o.Evicted || o.Capped,
		NextSeq:     ptr(o.NextSeq),
		YieldReason: string(reason),
		TTY:         ptr(p.TTY),
		Screen:      screenOut(o),
		Name:        p.Name,
	}
	out.patternFields = pf
	out.longFields = h.long(p)
	out.ExitCode, out.Signal = exitFields(info)
	if info.Status == session.Running {
		out.Status = "backgrounded"
		out.Message = "The command is still running in the background. Use read (with since_seq = next_seq), write, wait or stop with this process_id."
	} else {
		out.Status = string(info.Status)
		out.EndedBy = string(info.EndedBy)
		if info.Status == session.TimedOut {
			out.YieldReason = "timeout"
		}
		out.Notes = endNotes(info)
	}
	if info.StdinError != "" {
		out.Notes = append(out.Notes, "writing stdin failed: "+info.StdinError)
	}
	out.Notes = append(out.Notes, h.verifyNotes(p, waitFor, reason, info, restarts)...)
	return nil, out, nil
}

// endNotes explains the end of a process when something about it needs
// saying.
func endNotes(in session.Info) []string {
	if in.OutputLeftOpen {
		return []string{"the command exited but a process it started still holds its output open; later output from it is in read"}
	}
	return nil
}

// clampYield applies the spec's defaults and clamps to yield_ms.
func (h *handlers) clampYield(req *int) int {
	y := h.cfg.DefaultYieldMs
	if req != nil {
		y = *req
	}
	return min(max(y, 0), h.cfg.MaxYieldMs)
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
