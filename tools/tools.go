package tools

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yieldshell/yieldshell/internal/askhuman"
	"github.com/yieldshell/yieldshell/internal/mcptool"
	"github.com/yieldshell/yieldshell/internal/policy"
	"github.com/yieldshell/yieldshell/internal/roots"
	"github.com/yieldshell/yieldshell/internal/session"
	"github.com/yieldshell/yieldshell/internal/shellyeah"
)

// handlers holds what every tool handler needs.
type handlers struct {
	m       *session.Manager
	cfg     *policy.Config
	version string
	// progressEvery overrides how often blocking calls report progress
	// (tests); zero means progressEvery.
	progressEvery time.Duration
	human         *askhuman.Human // ask_human and approvals
	roots         *roots.Tracker  // each client session's roots; nil: none
}

// Option configures Register.
type Option func(*options)

type options struct {
	human *askhuman.Human
	roots *roots.Tracker
}

// WithHuman gives the tools a way to ask the person at the other end:
// ask_human's pages and YIELDSHELL_ASK's approvals. Without it ask_human
// answers that it cannot make pages, and refusals stand.
func WithHuman(h *askhuman.Human) Option { return func(o *options) { o.human = h } }

// WithRoots gives the tools each client session's roots (package roots):
// the default cwd and, with YIELDSHELL_ALLOWED_CWDS=roots, the allowed
// ones. Without it a start has no client roots.
func WithRoots(t *roots.Tracker) Option { return func(o *options) { o.roots = t } }

// Register adds the tool surface that cfg.Toolset selects to s: by default
// the seven tools of mcp-yieldshell 0.4.0 plus restart; the mcp-shell-yeah
// tools (package shellyeah) for "shell-yeah"; both for "all". version is the
// server's, reported by ps and health_check.
func Register(s *mcp.Server, m *session.Manager, cfg *policy.Config, version string, opts ...Option) {
	var o options
	for _, f := range opts {
		f(&o)
	}
	if cfg.Toolset == policy.ToolsetShellYeah || cfg.Toolset == policy.ToolsetAll {
		shellyeah.Register(s, m, cfg, version, o.human, o.roots)
	}
	if cfg.Toolset == policy.ToolsetShellYeah {
		return
	}
	h := &handlers{m: m, cfg: cfg, version: version, human: o.human, roots: o.roots}
	mcptool.Add(s, execTool(cfg), h.exec)
	mcptool.Add(s, readTool(), h.read)
	mcptool.Add(s, writeTool(), h.write)
	mcptool.Add(s, waitTool(), h.wait)
	mcptool.Add(s, stopTool(), h.stop)
	mcptool.Add(s, psTool(), h.ps)
	mcptool.Add(s, cleanupTool(), h.cleanup)
	mcptool.Add(s, restartTool(), h.restart)
	mcptool.Add(s, askHumanTool(), h.askHuman) // in "all" it replaces shell-yeah's
}

// Icons is the server's icon list, for serverInfo (the tools carry it too).
func Icons() []mcp.Icon { return mcptool.Icons() }

func unknownProcess(id string) string {
	return fmt.Sprintf("Unknown process_id: %s (ps lists the processes this server knows)", id)
}

// text turns log bytes into a JSON-safe string: output that is not valid
// UTF-8 (pipe mode passes bytes through) gets U+FFFD.
func text(b []byte) string {
	return strings.ToValidUTF8(string(b), "\uFFFD")
}

// sentence turns an error into the message an agent reads: Go error text
// starts lower-case, 0.4.0's messages ("Process is not running ...") do not.
func sentence(err error) string {
	s := err.Error()
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// millis rounds d to tenths of a millisecond, as 0.4.0 reported durations.
func millis(d time.Duration) float64 {
	return math.Round(float64(d)/float64(time.Millisecond)*10) / 10
}

// epoch returns t as seconds since the Unix epoch.
func epoch(t time.Time) float64 {
	return float64(t.UnixMicro()) / 1e6
}

// outputCap applies the server cap to a requested max_output_bytes: absent or
// not positive means the cap.
func (h *handlers) outputCap(req *int) int {
	c := h.cfg.MaxOutputBytes
	if req != nil && *req > 0 && *req < c {
		return *req
	}
	return c
}

// ScreenOut is the rendered terminal of a PTY-mode process.
type ScreenOut struct {
	Lines         []string `json:"lines" jsonschema:"the visible rows, trailing blanks and empty rows at the bottom left out"`
	CursorRow     int      `json:"cursor_row" jsonschema:"0-based"`
	CursorCol     int      `json:"cursor_col" jsonschema:"0-based"`
	Cols          int      `json:"cols" jsonschema:"terminal width in columns"`
	Rows          int      `json:"rows" jsonschema:"terminal height in rows"`
	AltScreen     bool     `json:"alt_screen" jsonschema:"a full-screen program (vim, less, top) is running"`
	CursorVisible bool     `json:"cursor_visible" jsonschema:"the program shows the cursor"`
	Degraded      bool     `json:"degraded,omitempty" jsonschema:"the emulator had to be reset; earlier screen content is lost"`
}

func screenOut(o session.Output) *ScreenOut {
	s := o.Screen
	if s == nil {
		return nil
	}
	lines := s.Lines
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return &ScreenOut{
		Lines: append([]string{}, lines...), CursorRow: s.CursorY, CursorCol: s.CursorX,
		Cols: s.Cols, Rows: s.Rows, AltScreen: s.AltScreen, CursorVisible: s.CursorVisible, Degraded: s.Degraded,
	}
}

// InputOut is the input-wait part of an answer about a running process.
type InputOut struct {
	WaitingForInput *bool  `json:"waiting_for_input,omitempty" jsonschema:"the program is waiting for input: answer it with write"`
	InputKind       string `json:"input_kind,omitempty" jsonschema:"what it waits for: line, password (a secret is asked; with input_signal tty_read, relay_read or stdin_read the kernel shows the read with the terminal's echo off, and write's wait_for_password types it; with quiet_prompt only the prompt's text says so, and wait_for_password refuses), command (a shell prompt), confirm (type one of choices; Enter alone takes default), choice (a menu: items, selected; or type one of choices when numbered), continuation (the rest of an unfinished statement), pager (Space pages, q quits) or editor (a full-screen editor)"`
	InputSignal     string `json:"input_signal,omitempty" jsonschema:"how that was seen: prompt_mark (shell integration), tty_read or stdin_read (the kernel: a process of the command's tree blocked reading its input, in the foreground or not: a dialog a daemon drew), relay_read (the kernel, through a relay: a program the command runs under a terminal of its own, such as script, screen, tmux, expect or unbuffer, blocked reading that inner terminal, judged on its settings; what is written reaches it through the relay), tty_mode (a password prompt on a terminal reading lines with echo off, where the reader cannot be looked at: sudo), quiet_prompt (a prompt-shaped last line, then 150 ms of silence)"`
	InputConfidence string `json:"input_confidence,omitempty" jsonschema:"what that rests on: high (the kernel shows the command's tree blocked reading its input, directly or through a relay, or a shell's prompt mark), medium (tty_mode: the terminal reads lines with echo off, the reader unseen), low (quiet_prompt: the prompt's text alone; the program may wait for something else, such as a timer or a remote program behind ssh: look at the output before answering)"`
	Prompt          string `json:"prompt,omitempty" jsonschema:"the prompt text: the line the cursor is on"`
	mcptool.Asked
}

// CommandOut is what an integrated shell reports of the commands it
// finished since the last write.
type CommandOut struct {
	CommandExitCode  *int  `json:"command_exit_code,omitempty" jsonschema:"in an interactive shell: the exit code of the last command that finished since the last write"`
	CommandExitCodes []int `json:"command_exit_codes,omitempty" jsonschema:"in an interactive shell, when several commands finished since the last write (several lines written at once, or typed while a command ran): each one's exit code, in order"`
}

// commandOut reports the commands an integrated shell finished since the
// last write (Snapshot.CommandExits).
func commandOut(codes []int) CommandOut {
	if len(codes) == 0 {
		return CommandOut{}
	}
	out := CommandOut{CommandExitCode: new(codes[len(codes)-1])}
	if len(codes) > 1 {
		out.CommandExitCodes = codes
	}
	return out
}

// inputOut describes st; only answers about a running process carry it.
func inputOut(st session.InputState) InputOut {
	g := st.Grammar
	return InputOut{WaitingForInput: new(st.Waiting), InputKind: string(st.Kind), InputSignal: string(st.Signal), InputConfidence: string(st.Confidence), Prompt: st.Prompt,
		Asked: mcptool.NewAsked(g.Choices, g.Default, g.Range, g.Items, g.Selected, g.Checked, st.Ready, st.Ports)}
}

// exitFields are the exit_code and signal of a summary, null while running.
func exitFields(in session.Info) (*int, *string) {
	var sig *string
	if in.Signal != "" {
		sig = new(in.Signal)
	}
	return in.ExitCode, sig
}

// ms is a duration the wire gives in milliseconds.
func ms(n int) time.Duration { return time.Duration(n) * time.Millisecond }
