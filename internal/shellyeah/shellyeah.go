package shellyeah

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yieldshell/yieldshell/internal/answer"
	"github.com/yieldshell/yieldshell/internal/askhuman"
	"github.com/yieldshell/yieldshell/internal/mcptool"
	"github.com/yieldshell/yieldshell/internal/policy"
	"github.com/yieldshell/yieldshell/internal/roots"
	"github.com/yieldshell/yieldshell/internal/session"
	"github.com/yieldshell/yieldshell/internal/wire"
)

// Timings of the answers. They are bounds: each wait returns as soon as its
// condition holds.
const (
	inputQuiet    = 200 * time.Millisecond // send_input: reaction quiet this long
	inputMax      = 2 * time.Second
	stopGrace     = 3 * time.Second
	maxWait       = 55 * time.Second
	defaultLines  = 20
	maxLines      = 1000
	defaultVerify = 30 * time.Second
)

// handlers holds what every tool needs, and the command and args each
// label was started with (the engine only knows the joined command line).
type handlers struct {
	m       *session.Manager
	cfg     *policy.Config
	version string
	human   *askhuman.Human
	roots   *roots.Tracker // each client session's roots; nil: none

	settle settleTiming

	mu      sync.Mutex
	started map[string]startArgs       // by label
	checked map[*session.Process]int64 // where the previous check_shell stopped reading
}

// startArgs is how a label was started.
type startArgs struct {
	Command string
	Args    []string
	Host    string
	Verify  verification
}

// Register adds the eleven mcp-shell-yeah tools and ask_human to s; human
// asks the person (nil: ask_human refuses); rt has each client session's
// roots (nil: none).
func Register(s *mcp.Server, m *session.Manager, cfg *policy.Config, version string, human *askhuman.Human, rt *roots.Tracker) {
	h := &handlers{
		m: m, cfg: cfg, version: version, human: human, roots: rt,
		// 75 ms after the output stops: the peer's fast-mode window.
		settle: settleTiming{
			quiet: 75 * time.Millisecond,
			first: 300 * time.Millisecond,
			max:   3 * time.Second,
		},
		started: make(map[string]startArgs),
		checked: make(map[*session.Process]int64),
	}
	addLenient(s, startShellTool(), h.startShell)
	addLenient(s, startShellWithVerificationTool(), h.startShellWithVerification)
	addLenient(s, checkShellTool(), h.checkShell)
	addLenient(s, stopShellTool(), h.stopShell)
	addLenient(s, listShellsTool(), h.listShells)
	addLenient(s, stopAllShellsTool(), h.stopAllShells)
	addLenient(s, restartShellTool(), h.restartShell)
	addLenient(s, waitForShellTool(), h.waitForShell)
	addLenient(s, getAllLoglinesTool(), h.getAllLoglines)
	addLenient(s, sendInputTool(), h.sendInput)
	addLenient(s, healthCheckTool(), h.healthCheck)
	addLenient(s, askHumanTool(), h.askHuman)
}

// Shell is a shell's state as check_shell, list_shells and the start tools
// report it.
type Shell struct {
	Label        string   `json:"label"`
	ProcessID    string   `json:"process_id,omitempty" jsonschema:"the run's id in yieldshell's own tools"`
	Status       string   `json:"status" jsonschema:"running, restarting (after a crash, under its restart policy), crashed (non-zero exit, killed by a signal nobody sent, or stopped for waiting for input under on_input \"fail\"), or stopped (exit code 0, or stopped)"`
	Pid          int      `json:"pid,omitempty"`
	Command      string   `json:"command"`
	Args         []string `json:"args"`
	Cwd          string   `json:"cwd"`
	ExitCode     *int     `json:"exitCode" jsonschema:"the exit status once the shell exited; null while it runs and when a signal ended it (see signal)"`
	Signal       *string  `json:"signal" jsonschema:"the name of the signal that ended the shell (SIGTERM after a stop), or null"`
	Restarts     int      `json:"restarts,omitempty"`
	LogFilePath  string   `json:"log_file_path,omitempty"`
	TailCommand  string   `json:"tail_command,omitempty"`
	DetectedURLs []string `json:"detected_urls,omitempty" jsonschema:"http(s) URLs the shell printed, in order"`
	// AwaitingInput is the peer's field, answered by the same detection as
	// yieldshell's waiting_for_input (marks, the kernel, prompt shape).
	AwaitingInput bool   `json:"isProbablyAwaitingInput" jsonschema:"the shell is waiting for input: answer with send_input"`
	Prompt        string `json:"prompt,omitempty" jsonschema:"the prompt it waits at"`
	InputKind     string `json:"input_kind,omitempty" jsonschema:"yieldshell extension: what it waits for: line, password, command, confirm (type one of choices; Enter alone takes default), choice (a menu: items and selected), continuation, pager or editor"`
	mcptool.Asked
	// Sandbox is yieldshell's: the kernel sandbox and its denials.
	Sandbox *wire.SandboxOut `json:"sandbox,omitempty" jsonschema:"yieldshell extension: the kernel sandbox the shell runs in and what it was denied (present when confined)"`
}

// status maps a run onto shell-yeah's statuses.
func (h *handlers) status(p *session.Process, in session.Info) string {
	switch {
	case in.Status == session.Running:
		return "running"
	case in.EndedBy == session.EndedByInput:
		return "crashed" // it asked for input under on_input "fail"
	case h.m.WillRestart(p):
		return "restarting"
	case in.Crashed():
		return "crashed"
	}
	return "stopped"
}

// snapshot takes p's state for an answer, with its log from position
// since on. look takes it without committing the rows on the screen (a
// listing that shows no log text).
func (h *handlers) snapshot(p *session.Process, since int64, look bool) session.Snapshot {
	return p.Snapshot(session.Query{Since: &since, MaxBytes: h.cfg.Limits.BufferBytes, Streams: session.Both, Look: look, Input: session.InputNow})
}

// shell describes p from s, one snapshot of it.
func (h *handlers) shell(p *session.Process, s session.Snapshot) Shell {
	h.mu.Lock()
	sa, ok := h.started[p.Name]
	h.mu.Unlock()
	if !ok {
		sa = startArgs{Command: s.Command}
	}
	sh := Shell{
		Label: p.Name, ProcessID: p.ID, Status: h.status(p, s.Info), Pid: p.Pid,
		Command: sa.Command, Args: append([]string{}, sa.Args...), Cwd: s.Cwd,
		ExitCode:     exitCode(s.Info),
		Restarts:     h.m.History(p).Restarts,
		LogFilePath:  h.m.LogPath(p),
		TailCommand:  h.m.TailCommand(p),
		DetectedURLs: s.URLs,
		Sandbox:      answer.SandboxOut(p.Sandbox()),
	}
	if s.Signal != "" {
		sh.Signal = new(s.Signal)
	}
	if s.Status == session.Running {
		st := s.Input
		sh.AwaitingInput, sh.Prompt, sh.InputKind, sh.Asked = st.Waiting, st.Prompt, string(st.Kind), askedOf(st)
	}
	return sh
}

// exitCode is in's exit status in the peer's form: null when a signal
// ended the process (yieldshell's own tools say -N).
func exitCode(in session.Info) *int {
	if in.Signal != "" {
		return nil
	}
	return in.ExitCode
}

// lookup resolves a label to its newest run.
func (h *handlers) lookup(label string) (*session.Process, error) {
	p, err := h.m.Get(label)
	if err != nil {
		return nil, fmt.Errorf("no shell with that label (it never existed, or it ended long enough ago to be forgotten); list_shells shows the labels this server knows")
	}
	return p, nil
}

// lines returns the lines of the clean log in s (at most the newest
// MCP_MAX_LOG_LINES), and whether some of them were dropped.
func (h *handlers) lines(s session.Snapshot) ([]string, bool) {
	text := strings.TrimRight(strings.ToValidUTF8(string(s.Stdout)+string(s.Stderr), "\uFFFD"), "\n")
	if text == "" {
		return []string{}, s.Evicted
	}
	lines := strings.Split(text, "\n")
	if extra := len(lines) - h.cfg.Limits.LogLines; extra > 0 {
		return lines[extra:], true
	}
	return lines, s.Evicted
}

func sentence(err error) string {
	s := err.Error()
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
