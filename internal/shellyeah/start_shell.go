package shellyeah

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yieldshell/yieldshell/internal/mcptool"
	"github.com/yieldshell/yieldshell/internal/policy"
	"github.com/yieldshell/yieldshell/internal/proc"
	"github.com/yieldshell/yieldshell/internal/session"
)

// StartShellIn is start_shell's input.
type StartShellIn struct {
	Command          string   `json:"command" jsonschema:"the command to run, e.g. npm; it runs through bash -c (/bin/sh -c where bash is not installed; cmd.exe /c on Windows), so a whole command line (npm run dev) works too"`
	WorkingDirectory string   `json:"workingDirectory" jsonschema:"absolute directory to run it in"`
	Label            string   `json:"label,omitempty" jsonschema:"a name for the shell (e.g. dev-server), compared case-insensitively with blanks as -; generated from the command when omitted. A label whose shell is running cannot be started again: use restart_shell"`
	Args             []string `json:"args,omitempty" jsonschema:"arguments, each passed to the command as one word (quoted for the shell)"`
	Host             string   `json:"host,omitempty" jsonschema:"the client: cursor, claude, chatgpt, vscode, windsurf or unknown (default); for cursor the answer suggests how to follow the log"`
	SideEffects      []string `json:"side_effects,omitempty" jsonschema:"yieldshell extension: side-effect categories of the command, as exec takes them (default [\"UNKNOWN\"])"`
	SSHHost          string   `json:"ssh_host,omitempty" jsonschema:"yieldshell extension: run the shell on another host, an ssh destination ([user@]host or a name from ~/.ssh/config), as exec's host does (host here names the client); its label ends in @host and workingDirectory is on that host"`
	// The peer's clients send these to start_shell too (the peer ignores
	// them there); they mean what they mean in start_shell_with_verification.
	VerificationPattern   string `json:"verification_pattern,omitempty" jsonschema:"regex (Go RE2) that means the shell is up, e.g. 'ready in|Local:'; output from its first byte counts. The answer comes when it appears, the shell ends, or verification_timeout_ms passes"`
	VerificationTimeoutMs *int   `json:"verification_timeout_ms,omitempty" jsonschema:"how long to wait for verification_pattern (default 30000; -1 also means the default, never forever)"`
	Sandbox               string `json:"sandbox,omitempty" jsonschema:"yieldshell extension: confine this shell more tightly than the server does (never less): \"workspace-write\" or \"read-only\" (Linux)"`
	OnInput               string `json:"on_input,omitempty" jsonschema:"yieldshell extension: \"fail\" stops the shell if it waits for input while it starts (status crashed, with the prompt, input_kind and its choices or items); \"return\" (default) leaves it waiting, isProbablyAwaitingInput true"`
}

// StartOut is the answer of start_shell, start_shell_with_verification and
// restart_shell.
type StartOut struct {
	Shell
	Ignored
	WorkingDirectory      string   `json:"workingDirectory"`
	Host                  string   `json:"host"`
	Message               string   `json:"message"`
	ShellLogs             []string `json:"shellLogs" jsonschema:"the shell's output so far, as clean lines"`
	ToolLogs              []string `json:"toolLogs" jsonschema:"what the server did: spawned (with the pid), verification outcome, final status"`
	AIInstructions        string   `json:"ai_instructions" jsonschema:"how to follow the shell from here: a suggestion, not an order"`
	UserHint              string   `json:"user_hint,omitempty"`
	IsVerificationEnabled bool     `json:"isVerificationEnabled" jsonschema:"verification_pattern was given"`
	VerificationPattern   string   `json:"verificationPattern,omitempty"`
	VerificationTimeoutMs *int     `json:"verificationTimeoutMs,omitempty"`
	Verified              *bool    `json:"verified,omitempty" jsonschema:"whether verification_pattern appeared before the shell ended or the timeout passed"`
	MatchedLine           string   `json:"matched_line,omitempty"`
	Error                 string   `json:"error,omitempty"`
	Rule                  string   `json:"rule,omitempty" jsonschema:"the policy rule that refused the start, or name when the label's shell is running"`
}

// Outcome is what the answer says for counting: the rule that refused the
// start.
func (o StartOut) Outcome() mcptool.Outcome { return mcptool.Outcome{Rule: o.Rule} }

func startShellTool() *mcp.Tool {
	return &mcp.Tool{
		Name:  "start_shell",
		Title: "Start a background shell",
		Description: `Start a long-running command (dev server, watcher, test runner) in the background under a label, and answer with its first output once it goes quiet (at most 3 s). Check it later with check_shell, send it input with send_input, stop it with stop_shell. URLs it prints are in detected_urls. With verification_pattern it answers once that appears instead, as start_shell_with_verification does.

Example: {"command": "npm", "args": ["run", "dev"], "workingDirectory": "/home/me/app", "label": "web"}`,
		Annotations: mcptool.Annotations("Start a background shell", mcptool.Runs),
	}
}

func (h *handlers) startShell(ctx context.Context, req *mcp.CallToolRequest, in StartShellIn) (*mcp.CallToolResult, StartOut, error) {
	return h.start(ctx, req, in, session.RestartPolicy{})
}

// verification is start_shell_with_verification's part of a start.
type verification struct {
	pattern *regexp.Regexp
	timeout time.Duration
	restart session.RestartPolicy
	// failOnInput: on_input "fail", a shell that waits for input while it
	// starts is stopped.
	failOnInput bool
}

// verification reads in's verification arguments.
func (h *handlers) verification(in StartShellIn) (verification, error) {
	v := verification{timeout: defaultVerify}
	if in.VerificationPattern != "" {
		re, err := regexp.Compile(in.VerificationPattern)
		if err != nil {
			return v, fmt.Errorf("invalid verification_pattern: %s (Go RE2 syntax); nothing was started", policy.RegexProblem(err))
		}
		v.pattern = re
	}
	if t := in.VerificationTimeoutMs; t != nil && *t >= 0 {
		v.timeout = min(mcptool.Millis(*t), h.cfg.Times.MaxYield)
	}
	switch in.OnInput {
	case "", "return":
	case "fail":
		v.failOnInput = true
	default:
		return v, errors.New(`invalid on_input: use "return" or "fail"; nothing was started`)
	}
	return v, nil
}

// start starts a shell under restart policy rp and builds the start answer.
func (h *handlers) start(ctx context.Context, req *mcp.CallToolRequest, in StartShellIn, rp session.RestartPolicy) (*mcp.CallToolResult, StartOut, error) {
	host := in.Host
	if host == "" {
		host = "unknown"
	}
	fail := func(out StartOut) (*mcp.CallToolResult, StartOut, error) {
		out.Label, out.Command, out.Args, out.WorkingDirectory, out.Host = session.NormalizeName(in.Label), in.Command, nonNil(in.Args), in.WorkingDirectory, host
		out.Status, out.ShellLogs, out.ToolLogs = "error", []string{}, []string{}
		out.Message = out.Error
		return mcptool.Error(out)
	}
	if strings.TrimSpace(in.Command) == "" {
		return fail(StartOut{Error: "command is empty: give the program to run (and its args)"})
	}
	if in.WorkingDirectory == "" {
		return fail(StartOut{Error: "workingDirectory is required: give the absolute directory to run the command in"})
	}
	v, err := h.verification(in)
	if err != nil {
		return fail(StartOut{Error: err.Error()})
	}
	v.restart = rp
	effects := in.SideEffects
	if len(effects) == 0 {
		effects = []string{"UNKNOWN"}
	}
	spec := session.Spec{
		Command:     joinCommand(in.Command, in.Args),
		SideEffects: effects,
		Cwd:         in.WorkingDirectory,
		TTY:         true,
		Restart:     v.restart,
		Sandbox:     in.Sandbox,
		Host:        in.SSHHost,
	}
	if spec.Host == "" && h.cfg.NeedsRoots(spec.Cwd) {
		r, ask := h.roots.For(ctx, req, h.cfg.Cwd.FromRoots)
		if ask != nil {
			return ask, StartOut{}, nil // the sessionless protocol: the retry carries the client's roots
		}
		spec.Roots = r
	}
	p, err := h.startLabelled(ctx, spec, in.Label)
	if err != nil {
		out := StartOut{Error: sentence(err)}
		if r, ok := errors.AsType[*policy.Refusal](err); ok {
			out.Rule = r.Rule
		}
		if _, ok := errors.AsType[*session.NameInUseError](err); ok {
			out.Rule = "name"
		}
		return fail(out)
	}
	h.mu.Lock()
	for label := range h.started { // forget labels whose runs were purged
		if _, err := h.m.Get(label); err != nil {
			delete(h.started, label)
		}
	}
	for run := range h.checked {
		if _, err := h.m.Get(run.ID); err != nil {
			delete(h.checked, run)
		}
	}
	h.started[p.Name] = startArgs{Command: in.Command, Args: nonNil(in.Args), Host: host, Verify: v}
	h.mu.Unlock()
	return nil, h.startAnswer(ctx, p, host, v), nil
}

// startLabelled starts spec under label, or under a label made from the
// command (with -2, -3, ... while that one is running) when none is given.
func (h *handlers) startLabelled(ctx context.Context, spec session.Spec, label string) (*session.Process, error) {
	if session.NormalizeName(label) != "" {
		spec.Name = label
		return h.m.Start(ctx, spec)
	}
	base := session.NormalizeName(spec.Command)
	if len(base) > 48 {
		base = strings.TrimRight(base[:48], "-")
	}
	for i := 1; ; i++ {
		spec.Name = base
		if i > 1 {
			spec.Name = fmt.Sprintf("%s-%d", base, i)
		}
		p, err := h.m.Start(ctx, spec)
		if _, inUse := errors.AsType[*session.NameInUseError](err); !inUse || i >= 100 {
			return p, err
		}
	}
}

// startAnswer waits for the start to show (the pattern, or quiet output)
// and describes the shell.
func (h *handlers) startAnswer(ctx context.Context, p *session.Process, host string, v verification) StartOut {
	out := StartOut{ToolLogs: []string{fmt.Sprintf("Shell spawned with pid %d: %s", p.Pid, p.Command)}}
	if v.pattern != nil {
		var r session.Outcome
		var restarts int
		p, r, restarts = h.m.WaitPatternFollowing(ctx, p, time.Now().Add(v.timeout), v.pattern)
		if restarts > 0 {
			out.Message = fmt.Sprintf("It crashed and was restarted %d time(s) on the way. ", restarts)
		}
		out.IsVerificationEnabled = true
		out.VerificationPattern = v.pattern.String()
		out.VerificationTimeoutMs = new(int(v.timeout / time.Millisecond))
		out.Verified = new(r.Reason == session.ReasonPattern)
		out.MatchedLine = r.Line
		var verdict string
		switch r.Reason {
		case session.ReasonPattern:
			verdict = fmt.Sprintf("Verified: %q appeared in the output.", r.Line)
		case session.ReasonExited:
			verdict = "Not verified: the shell ended before the pattern appeared."
		default:
			verdict = fmt.Sprintf("Not verified: the pattern did not appear within %d ms; the shell is still running.", v.timeout/time.Millisecond)
		}
		out.Message += verdict + " "
		if restarts > 0 {
			out.ToolLogs = append(out.ToolLogs, fmt.Sprintf("Restarted %d time(s) after crashes; now pid %d.", restarts, p.Pid))
		}
		out.ToolLogs = append(out.ToolLogs, verdict)
	} else {
		h.settle.wait(ctx, p)
	}
	asked := h.failOnInput(ctx, p, v)
	s := h.snapshot(p, 0, false)
	out.Shell = h.shell(p, s)
	if asked != nil {
		out.InputKind, out.Prompt, out.Asked = string(asked.Kind), asked.Prompt, askedOf(*asked)
		out.ToolLogs = append(out.ToolLogs, fmt.Sprintf("Stopped: it waited for %s input (%q) and on_input is \"fail\".", asked.Kind, asked.Prompt))
	}
	out.WorkingDirectory = out.Cwd
	out.Host = host
	out.ShellLogs, _ = h.lines(s)
	out.Message = fmt.Sprintf("Shell %q started. %sStatus: %s.", p.Name, out.Message, out.Status)
	if out.ExitCode != nil {
		out.Message += fmt.Sprintf(" Exit code: %d.", *out.ExitCode)
	}
	out.ToolLogs = append(out.ToolLogs, "Status: "+out.Status+".")
	if out.TailCommand != "" {
		out.UserHint = "Follow its output with: " + out.TailCommand
	}
	out.AIInstructions = aiInstructions(out)
	return out
}

// aiInstructions suggests how to follow a shell from here.
func aiInstructions(out StartOut) string {
	hint := []string{"check_shell shows the lines printed since the previous check; send_input answers a prompt."}
	if out.TailCommand != "" {
		hint = append(hint, "To watch the output live, run tail_command in a background terminal (it keeps running).")
	}
	if len(out.DetectedURLs) > 0 {
		hint = append(hint, "It printed URLs (detected_urls) that the user may want as links.")
	}
	return strings.Join(hint, " ")
}

// settleTiming is how start_shell waits for a shell's first reaction.
type settleTiming struct {
	quiet time.Duration // the output has been quiet this long after its latest byte
	first time.Duration // where CPU time cannot be read: how long a shell that printed nothing gets to begin
	max   time.Duration // no wait is longer, a shell that printed nothing but is loading included
}

// wait returns once the output has been quiet for s.quiet after its latest
// byte, the shell waits for input, or it ended. A shell that has printed
// nothing is waited for while its process group uses CPU time or is
// runnable (an interpreter loading: a pyenv shim's python takes over a
// second on a busy machine), up to s.max; one that sleeps is answered at
// once.
func (s settleTiming) wait(ctx context.Context, p *session.Process) {
	begun := time.Now()
	deadline := begun.Add(s.max)
	var used int64
	for p.Await(ctx, deadline, session.Until{Quiet: s.quiet}).Reason == session.ReasonQuiet {
		// A look: whether it printed anything (on the screen counts)
		// changes nothing in its log.
		snap := p.Snapshot(session.Query{Look: true, Input: session.InputNow})
		if snap.StdoutBytes+snap.StderrBytes > 0 || snap.Input.Waiting {
			return
		}
		if now, running, ok := proc.GroupCPU(p.Pid); ok {
			if now == used && !running {
				return
			}
			used = now
		} else if time.Since(begun) >= s.first {
			return
		}
	}
}

// joinCommand appends args to command, each quoted as one shell word.
func joinCommand(command string, args []string) string {
	var b strings.Builder
	b.WriteString(command)
	for _, a := range args {
		b.WriteByte(' ')
		b.WriteString(shellQuote(a))
	}
	return b.String()
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
