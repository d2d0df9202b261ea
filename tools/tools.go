package tools

import (
	"context"
	"fmt"
	"math"
	"os"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yieldshell/yieldshell/internal/answer"
	"github.com/yieldshell/yieldshell/internal/askhuman"
	"github.com/yieldshell/yieldshell/internal/mcptool"
	"github.com/yieldshell/yieldshell/internal/policy"
	"github.com/yieldshell/yieldshell/internal/roots"
	"github.com/yieldshell/yieldshell/internal/session"
	"github.com/yieldshell/yieldshell/internal/shellyeah"
	"github.com/yieldshell/yieldshell/internal/toolhost"
)

// handlers holds what every tool handler needs.
type handlers struct {
	*answer.Reader // the answers about a process, shared with resources
	m              *session.Manager
	cfg            *policy.Config
	version        string
	// progressEvery overrides how often blocking calls report progress
	// (tests); zero means progressEvery.
	progressEvery time.Duration
	human         *askhuman.Human // ask_human and approvals
	roots         *roots.Tracker  // each client session's roots; nil: none
}

// Option configures Add.
type Option func(*toolhost.Host)

// WithEnv has Add read its settings — the YIELDSHELL_* variables the
// README lists: toolset, limits, policy, log directory — through getenv
// instead of os.Getenv.
func WithEnv(getenv func(string) string) Option { return func(h *toolhost.Host) { h.Getenv = getenv } }

// WithVersion is the version ps and health_check report (default "dev").
func WithVersion(v string) Option { return func(h *toolhost.Host) { h.Version = v } }

// Shells runs the commands of the tools Add added. Close it when the
// server is done.
type Shells struct {
	m      *session.Manager // the Manager Add made; nil when the caller gave its own
	tmpDir string           // a log directory Add made; "" when none
}

// Close stops every process the tools started, waiting for them until
// ctx ends, and removes what Add made.
func (sh *Shells) Close(ctx context.Context) {
	if sh.m != nil {
		sh.m.Shutdown(ctx)
	}
	if sh.tmpDir != "" {
		os.RemoveAll(sh.tmpDir)
	}
}

// Add adds yieldshell's tools to s: by default exec, read, write, wait,
// stop, ps, cleanup, restart and ask_human, as the yieldshell command
// serves them; YIELDSHELL_TOOLSET picks the mcp-shell-yeah set instead, or
// both. The commands run on this machine as children of this process,
// under the policy the settings give (WithEnv): from Add on, a SIGCHLD
// reaper waits for every child of the process, so nothing else in it may
// wait for children of its own. Give s the text of Instructions.
func Add(s *mcp.Server, opts ...Option) (*Shells, error) {
	h := toolhost.Host{Version: "dev"}
	for _, f := range opts {
		f(&h)
	}
	sh := &Shells{}
	if h.Config == nil {
		cfg, err := loadConfig(h.Getenv)
		if err != nil {
			return nil, err
		}
		h.Config = cfg
	}
	if h.Manager == nil {
		m, dir, err := localManager(h.Config)
		if err != nil {
			return nil, err
		}
		h.Manager, sh.m, sh.tmpDir = m, m, dir
	}
	register(s, h)
	return sh, nil
}

// loadConfig reads the settings as the yieldshell command does.
func loadConfig(getenv func(string) string) (*policy.Config, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	cwd, err := os.Getwd()
	if err != nil {
		return nil, fmt.Errorf("tools: reading the working directory: %w", err)
	}
	cfg, err := policy.Load(getenv, cwd)
	if err != nil {
		return nil, fmt.Errorf("tools: reading the settings: %w", err)
	}
	return cfg, nil
}

// localManager returns a Manager that runs commands on this machine, and
// the log directory it made for the mcp-shell-yeah tools, which always
// answer with a log file ("" when none was needed).
func localManager(cfg *policy.Config) (*session.Manager, string, error) {
	var dir string
	if cfg.Log.Dir == "" && cfg.Toolset != policy.ToolsetDefault {
		d, err := session.NewTempDir("logs")
		if err != nil {
			return nil, "", fmt.Errorf("tools: making a directory for the shells' logs: %w", err)
		}
		cfg.Log.Dir, dir = d, d
	}
	var m *session.Manager
	o, err := session.LocalOptions(nil)
	if err == nil {
		m, err = session.NewManager(cfg, o)
	}
	if err != nil {
		if dir != "" {
			os.RemoveAll(dir)
		}
		return nil, "", fmt.Errorf("tools: starting the process manager: %w", err)
	}
	return m, dir, nil
}

// register adds the tool surface that the Host's Config.Toolset selects
// to s: by default the seven tools of mcp-yieldshell 0.4.0 plus restart;
// the mcp-shell-yeah tools (package shellyeah) for "shell-yeah"; both for
// "all".
func register(s *mcp.Server, o toolhost.Host) {
	m, cfg, version := o.Manager, o.Config, o.Version
	if cfg.Toolset == policy.ToolsetShellYeah || cfg.Toolset == policy.ToolsetAll {
		shellyeah.Register(s, m, cfg, version, o.Human, o.Roots)
	}
	if cfg.Toolset == policy.ToolsetShellYeah {
		return
	}
	h := &handlers{Reader: answer.New(m, cfg), m: m, cfg: cfg, version: version, human: o.Human, roots: o.Roots}
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
