package tools

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yieldshell/yieldshell/internal/answer"
	"github.com/yieldshell/yieldshell/internal/mcptool"
	"github.com/yieldshell/yieldshell/internal/policy"
	"github.com/yieldshell/yieldshell/internal/session"
	"github.com/yieldshell/yieldshell/internal/wire"
)

// writeTimeout bounds a write to a process that does not read its input.
const writeTimeout = 10 * time.Second

func writeTool() *mcp.Tool {
	return &mcp.Tool{
		Name:  "write",
		Title: "Send input to a process",
		Description: `Send text and keys to a running process, as if typed at its terminal (or written to its stdin pipe with tty: false). newline presses Enter after it. With yield_ms the call waits for the reply and returns it: it answers as soon as the program waits for input again (the next prompt), exits, or yield_ms passes, with the output produced since the write.

Example (a REPL): {"process_id": "proc_1a2b3c4d5e6f", "input": "1+1", "newline": true, "yield_ms": 5000}
Example (keys): {"process_id": "proc_1a2b3c4d5e6f", "keys": ["Down", "Down", "Enter"]}

Passwords: write a secret with wait_for_password: true. Input written before the program turned the terminal's echo off (a password sent right after exec, or exec's stdin) is echoed into the output and the log; wait_for_password holds it until the kernel shows the program reading with echo off at a password prompt, writes nothing if it never does, and redacts the secret from the process's later output. Where only the prompt's text says a password is asked (a program polling several inputs, a remote prompt behind ssh), nothing is written: ask the user to type it (ask_human, where offered); a remote prompt is kernel-seen when exec's host runs the command there. Only if the user agreed may the secret be typed at such a prompt, with secret_at_text_prompt (still redacted).

In PTY mode newline sends a carriage return, what the Enter key sends. keys names keys (Enter, Tab, Esc, arrows, Backspace, C-c, C-d, ...); in pipe mode C-c, C-z and C-\ signal the process group and C-d closes stdin, as a terminal would. Input typed at a password prompt (input_kind "password") is not echoed, so it never appears in the output. In an interactive shell (bash, zsh, fish), a command written with yield_ms answers when it finishes, with command_exit_code; several lines written at once (or a line typed while a command runs) answer after the last of them, with command_exit_codes listing each one's code in order. read and wait report the codes of commands that finished after the write's answer. A write that the process does not accept within 10 s fails. cols and rows resize the terminal (input may then be empty).

Several steps in one call (a debugger or database session whose next lines you know): {"process_id": "db", "steps": [{"input": "select 1;", "newline": true}, {"input": ".tables", "newline": true, "until": "users"}]} types each step, waits until the program waits for input again (or until matches, within timeout_ms), then types the next; the answer has steps (ok and the output of each) and failed_step when one did not get there. Never put a secret in a step.`,
		Annotations: mcptool.Annotations("Send input to a process", mcptool.Types),
	}
}

func (h *handlers) write(ctx context.Context, req *mcp.CallToolRequest, in wire.WriteIn) (*mcp.CallToolResult, wire.WriteOut, error) {
	p, err := h.m.Get(in.ProcessID)
	if err != nil {
		return mcptool.Error(wire.WriteOut{ProcessID: in.ProcessID, Error: unknownProcess(in.ProcessID)})
	}
	if len(in.Steps) > 0 {
		return h.writeSteps(ctx, req, p, in)
	}
	if msg := resize(h.cfg, p, in.Cols, in.Rows); msg != "" {
		return mcptool.Error(wire.WriteOut{ProcessID: p.ID, Error: msg})
	}
	var yield time.Duration // no yield_ms: answer at once, as 0.4.0 did
	if in.YieldMs != nil {
		yield = h.clampYield(in.YieldMs)
	}
	start := time.Now()
	unverified := false
	if in.WaitForPassword {
		out, ok := h.holdForPassword(ctx, p, in, start, yield)
		if !ok {
			return mcptool.Error(out)
		}
		unverified = out.SecretUnverified
		// From now on every view of the process's output redacts it,
		// should the program print it back (issue 30 item 2).
		p.AddSecret(in.Input)
	}
	// Where the reply starts: what the log gets from here on. A look, which
	// commits nothing: rows on the screen that no answer showed yet are
	// logged after it, so they come first in the reply.
	before := p.Snapshot(session.Query{Look: true}).NextSeq
	wctx, cancel := context.WithTimeout(ctx, writeTimeout)
	defer cancel()
	if err := p.Type(wctx, in.Input, in.Keys, in.Newline, in.CloseStdin); err != nil {
		return mcptool.Error(wire.WriteOut{ProcessID: p.ID, Error: typingError(err)})
	}
	if yield <= 0 {
		return nil, wire.WriteOut{ProcessID: p.ID, OK: true, SecretUnverified: unverified}, nil
	}
	q := h.Query(&before, in.MaxOutputBytes, session.Both)
	q.Input = session.InputNow
	stopProgress := h.progress(ctx, req, p)
	w := p.Await(ctx, start.Add(yield), session.Until{InputWait: true, Ready: true, Answer: &q})
	stopProgress()
	reason := w.Reason
	if reason == session.ReasonDeadline {
		reason = session.ReasonYield
	}
	s := p.After(w, q)
	o := h.Output(p, s, q.Streams)
	out := wire.WriteOut{
		ProcessID: p.ID, OK: true, Status: o.Status, ExitCode: o.ExitCode, Signal: o.Signal,
		Stdout: o.Stdout, Stderr: o.Stderr, NextSeq: o.NextSeq, Truncated: o.Truncated,
		YieldReason: string(reason), EndedBy: o.EndedBy, InputOut: o.InputOut, Screen: o.Screen, OmitFields: o.OmitFields,
	}
	out.CommandOut = answer.Commands(s.CommandExits)
	out.SecretUnverified = unverified
	return nil, out, nil
}

// resize applies write's cols and rows, if given; it returns what went
// wrong, or "".
func resize(cfg *policy.Config, p *session.Process, cols, rows *int) string {
	if cols == nil && rows == nil {
		return ""
	}
	if cols == nil || rows == nil || *cols < 2 || *rows < 2 || *cols > 1000 || *rows > 1000 {
		return "resizing needs both cols and rows, each from 2 to 1000"
	}
	if err := cfg.CheckScreen(*cols, *rows); err != nil {
		return err.Error()
	}
	if err := p.Resize(uint16(*cols), uint16(*rows)); err != nil {
		return "resizing the terminal: " + err.Error()
	}
	return ""
}

// typingError is write's message for input that could not be typed.
func typingError(err error) string {
	switch {
	case errors.Is(err, session.ErrNotRunning):
		return sentence(err) + "; read or wait show its output"
	case errors.Is(err, context.DeadlineExceeded):
		return "the process did not accept input within 10s; it may not be reading (see read)"
	case strings.HasPrefix(err.Error(), "unknown key"):
		return sentence(err)
	}
	return err.Error()
}

// holdForPassword waits, up to yield (writeTimeout without yield_ms), for
// the program to wait for a password. ok is false, with the answer to
// give, when it does not: nothing is written then.
func (h *handlers) holdForPassword(ctx context.Context, p *session.Process, in wire.WriteIn, start time.Time, yield time.Duration) (out wire.WriteOut, ok bool) {
	hold := yield
	if hold <= 0 {
		hold = writeTimeout
	}
	before := p.Snapshot(session.Query{Look: true}).NextSeq
	o := p.Await(ctx, start.Add(hold), session.Until{InputWait: true})
	if o.Reason == session.ReasonInputWait && o.Input.TakesSecret() {
		return wire.WriteOut{}, true
	}
	if o.Reason == session.ReasonInputWait && o.Input.AsksPassword() && in.SecretAtTextPrompt {
		return wire.WriteOut{SecretUnverified: true}, true // the caller said so, the answer says so
	}
	advice := "Read the output, answer what it asks, and write the password again with wait_for_password"
	var why string
	switch {
	case o.Reason == session.ReasonInputWait && o.Input.AsksPassword():
		// It asks for a password, but nothing shows the terminal will not
		// echo it: prompt text alone is never enough.
		if o.Input.Kind == "password" {
			why = "the program shows a password prompt, but the kernel does not show it reading its terminal with echo off " +
				"(it waits on several inputs at once, as node's readline, a select() loop or ssh relaying a remote host's prompt do, " +
				"or this system cannot be asked), so the secret could be echoed into the output"
		} else {
			why = "the program shows a password prompt, but its terminal echoes what is typed, so the secret would appear in the output"
		}
		advice = "Ask the user to type it themselves (ask_human, where offered). " +
			"For a command on another host, exec's host runs it there with that host's kernel watching (the prompt is then seen as here); " +
			"where that cannot run (the host has no yieldshell build, or no writable directory), and only if the user agreed that the secret be typed " +
			"at a prompt nothing verifies, write it again with wait_for_password and secret_at_text_prompt: it stays redacted from every view"
	case o.Reason == session.ReasonInputWait:
		why = "the program waits for " + string(o.Input.Kind) + " input, not a password"
	case o.Reason == session.ReasonExited:
		why = "the process ended before it asked for a password"
	case o.Reason == session.ReasonCancelled:
		why = "the call was cancelled before the program asked for a password"
	default:
		why = "the program did not ask for a password within " + hold.String()
	}
	// The answer is one snapshot, the input state evaluated in it once
	// (the wait took none: on success nothing is answered yet).
	q := session.Query{Since: &before, MaxBytes: h.Cap(in.MaxOutputBytes), Streams: session.Both, Input: session.InputNow}
	r := h.Output(p, p.Snapshot(q), q.Streams)
	out = wire.WriteOut{
		ProcessID: p.ID, OK: false, Status: r.Status, ExitCode: r.ExitCode, Signal: r.Signal,
		Stdout: r.Stdout, Stderr: r.Stderr, NextSeq: r.NextSeq, Truncated: r.Truncated,
		EndedBy: r.EndedBy, InputOut: r.InputOut, Screen: r.Screen,
		Error: why + "; nothing was written. " + advice,
	}
	return out, false
}
