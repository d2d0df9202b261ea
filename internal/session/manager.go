package session

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/yieldshell/yieldshell/internal/disklog"
	"github.com/yieldshell/yieldshell/internal/policy"
	"github.com/yieldshell/yieldshell/internal/sandbox"
	"github.com/yieldshell/yieldshell/prompt"
	"github.com/yieldshell/yieldshell/pty"
)

// ErrUnknownProcess is returned for an id (or name) the Manager does not know.
var ErrUnknownProcess = errors.New("unknown process_id")

// ErrShuttingDown refuses new processes once shutdown began.
var ErrShuttingDown = errors.New("server is shutting down")

// Manager is the registry of processes. It is safe for concurrent use.
type Manager struct {
	cfg     *policy.Config
	engine  Engine
	log     *slog.Logger
	baseEnv []string
	// baseSecrets are the entries of baseEnv that name secrets
	// (policy.Config.SecretVars): what every start looks through.
	baseSecrets []string
	tag         string // this server's tag prefix, "<pid>:<start>:"
	prober      Prober
	hosts       Hosts // nil: no other host
	timing      timing
	keep        retention

	startedAt time.Time
	disk      *disklog.Dir    // nil unless YIELDSHELL_LOG_DIR is set
	life      context.Context // done at shutdown: crash restarts, the janitor, the sweep
	endLife   context.CancelFunc
	restarts  sync.WaitGroup // pending crash restarts (start.go)
	janitor   sync.WaitGroup // purges old records; the orphan sweep
	watch     changes        // starts, ends and forgets, for followers (watch.go)
	tmps      tmpDirs        // confined processes' TMPDIRs (sandboxtmp.go)
	// lateOutput is m.outputClosed, made once: each process holds it.
	lateOutput func()

	mu       sync.Mutex
	shellDir string // private directory of shell-integration files; "" until needed
	// sandboxSupport is what the kernel offers a sandbox (Options.Sandbox).
	sandboxSupport sandbox.Support
	allowedWrites  []string  // a person allowed every later sandboxed command to write (widen.go)
	hostList       *hostList // YIELDSHELL_SANDBOX_NETWORK's host list; nil without one
	reg            registry
	typed          personSecrets // typed on secret pages, redacted everywhere (shared.go)
	running        int           // started and not yet ended, including reservations
	shutdown       bool
}

// Options are what a Manager is given by the program it runs in, rather
// than takes from it: NewManager reads no environment and starts nothing
// but its own janitor (and, for a host list, the jail's helper once, to
// check that it works here).
type Options struct {
	// Engine starts and reaps the commands. The Manager owns it from
	// NewManager on, even when NewManager fails: Shutdown closes it, last.
	Engine Engine
	// Prober asks the kernel whether a program waits for input.
	Prober Prober
	// Env is the environment every command starts from, before what the
	// Manager adds (a server's is its own: os.Environ()).
	Env []string
	// Tag marks this server's commands and their descendants: the prefix
	// of their YIELDSHELL_TAG, unique to this server among all that ran
	// on the machine ("<pid>:<start time>:"). It finds descendants that
	// left their group, and the orphan sweep judges a tag by it.
	Tag string
	// Log gets the Manager's records; nil discards them.
	Log *slog.Logger
	// Sandbox is what the kernel offers a sandbox (sandbox.Probe): a
	// sandboxed configuration the kernel cannot enforce is refused.
	Sandbox sandbox.Support
	// Helper is the binary whose helper mode (netjail.HelperCommand)
	// starts a sandboxed command with a host list in its network jail:
	// this one. "" refuses a host list.
	Helper string
	// Hosts reaches other hosts (Spec.Host); nil refuses them. The
	// Manager owns it: Shutdown closes it once their processes ended.
	Hosts Hosts
}

// LocalOptions returns the Options of a server that runs commands on this
// machine as its own children. It has two effects, which is why it is a
// call of its own:
//
//   - it starts the SIGCHLD reaper ([pty.NewReaper]): from then on it
//     reaps every child of this process, so nothing else in the process
//     may wait for children of its own. The Manager given the Options
//     closes it; if none is, close o.Engine.
//   - it reads this process's start time from /proc, for the Tag.
//
// Env is os.Environ(), the Prober is [prompt.NewProber]'s.
func LocalOptions(log *slog.Logger) (Options, error) {
	self, err := pty.StartTime(os.Getpid())
	if err != nil {
		return Options{}, fmt.Errorf("reading our own start time: %w", err)
	}
	helper, err := os.Executable()
	if err != nil {
		return Options{}, fmt.Errorf("finding our own binary: %w", err)
	}
	reaper, err := pty.NewReaper()
	if err != nil {
		return Options{}, fmt.Errorf("starting reaper: %w", err)
	}
	return Options{
		Engine:  reaperEngine{reaper},
		Prober:  prompt.NewProber(),
		Env:     os.Environ(),
		Tag:     fmt.Sprintf("%d:%d:", os.Getpid(), self),
		Log:     log,
		Sandbox: sandbox.Probe(),
		Helper:  helper,
	}, nil
}

// NewManager returns a Manager that starts commands under cfg through
// o.Engine. With cfg.Times.PurgeAfter set it starts its janitor, which forgets
// old records; Shutdown stops and joins it. A server then calls
// [Manager.SweepOrphans].
func NewManager(cfg *policy.Config, o Options) (*Manager, error) {
	switch {
	case o.Engine == nil:
		return nil, errors.New("session: no engine")
	case o.Prober == nil || o.Tag == "":
		_ = o.Engine.Close()
		return nil, errors.New("session: the options need a prober and a tag")
	}
	if err := checkSandbox(cfg, o.Sandbox); err != nil {
		_ = o.Engine.Close()
		return nil, err
	}
	// Whatever the mode: a call may tighten it to one with the network.
	hosts, err := checkHostList(cfg.Sandbox, o.Helper, checkJail)
	if err != nil {
		_ = o.Engine.Close()
		return nil, err
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	m := &Manager{
		sandboxSupport: o.Sandbox,
		hostList:       hosts,
		tag:            o.Tag,
		cfg:            cfg,
		engine:         o.Engine,
		log:            o.Log,
		baseEnv:        o.Env,
		prober:         o.Prober,
		timing:         defaultTiming(cfg),
		keep:           defaultRetention(),
		startedAt:      time.Now(),
		hosts:          o.Hosts,
		reg:            newRegistry(),
	}
	m.baseSecrets = cfg.SecretVars(m.baseEnv)
	m.life, m.endLife = context.WithCancel(context.Background())
	m.lateOutput = m.outputClosed
	m.log.Debug("commands run under the default shell unless they name one", "shell", cfg.DefaultShell())
	if cfg.Log.Dir != "" {
		m.disk = disklog.New(cfg.Log.Dir, cfg.Log.MaxBytes, m.log)
	}
	// The janitor forgets finished processes once they ended longer ago
	// than YIELDSHELL_PURGE_AFTER_MS, so that a long-lived server's memory
	// stays bounded. Shutdown stops and joins it.
	if age := cfg.Times.PurgeAfter; age > 0 {
		m.janitor.Go(func() {
			tick(m.life.Done(), purgeInterval(age), func() {
				if n := m.Cleanup(age, age); n > 0 {
					m.log.Debug("purged finished processes", "count", n)
				}
			})
		})
	}
	return m, nil
}

// Get returns the process with this id or, failing that, the newest run
// under this name.
func (m *Manager) Get(id string) (*Process, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if p, ok := m.reg.procs[id]; ok {
		return p, nil
	}
	if p := m.reg.byName(NormalizeName(id)); p != nil {
		return p, nil
	}
	return nil, fmt.Errorf("%w: %s", ErrUnknownProcess, id)
}

// List returns the processes, newest first.
func (m *Manager) List() []*Process {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := slices.Clone(m.reg.order)
	slices.Reverse(out)
	return out
}

// Running returns the processes whose end the Manager has not handled
// yet, in no order: a follower of running processes need not look at
// every ended one kept for reading (thousands, after a busy day).
func (m *Manager) Running() []*Process {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]*Process, 0, len(m.reg.live))
	for p := range m.reg.live {
		out = append(out, p)
	}
	return out
}

// Cleanup removes ended processes whose end is older than the threshold for
// their status and returns how many it removed.
func (m *Manager) Cleanup(completedOlder, stoppedOlder time.Duration) int {
	now := time.Now()
	var removed []*Process
	m.mu.Lock()
	keep := m.reg.order[:0]
	for _, p := range m.reg.order {
		in := p.Info()
		limit := stoppedOlder
		if in.Status == Completed {
			limit = completedOlder
		}
		if in.Status != Running && now.Sub(in.EndedAt) > limit {
			delete(m.reg.procs, p.ID)
			removed = append(removed, p)
			continue
		}
		keep = append(keep, p)
	}
	clear(m.reg.order[len(keep):])
	m.reg.order = keep
	for _, p := range removed {
		m.reg.forget(p)
	}
	if len(removed) > 0 {
		m.reg.uncountForgotten()
	}
	m.mu.Unlock()
	for _, p := range removed {
		p.Close()
	}
	if len(removed) > 0 {
		m.watch.signal()
	}
	return len(removed)
}

// Shutdown ends every running process (SIGTERM to each group, SIGKILL after
// a short grace), refuses new ones, and closes everything, the engine last.
// It returns once all processes are reaped and all goroutines joined, or
// ctx is done.
func (m *Manager) Shutdown(ctx context.Context) {
	m.mu.Lock()
	if !m.shutdown {
		m.shutdown = true
		m.endLife()
	}
	m.mu.Unlock()
	// No crash restart can start after this, and none is half-way.
	m.restarts.Wait()
	m.janitor.Wait()
	m.mu.Lock()
	procs := slices.Clone(m.reg.order)
	m.mu.Unlock()
	// Another host's processes first, while the connections to their
	// executors (local processes) still stand.
	remote := slices.DeleteFunc(slices.Clone(procs), func(p *Process) bool { return p.Host == "" })
	m.endAll(ctx, remote)
	if m.hosts != nil {
		_ = m.hosts.Close()
	}
	m.endAll(ctx, slices.DeleteFunc(procs, func(p *Process) bool { return p.Host != "" }))
	if m.disk != nil {
		m.disk.Wait() // every process ended, so every writer finishes
	}
	m.tmps.removeAll()
	// Descendants that escaped processes which had already ended.
	m.engine.EndTagged(ctx, m.tag, m.timing.shutdownGrace)
	m.mu.Lock()
	if m.shellDir != "" {
		_ = os.RemoveAll(m.shellDir) // in the temporary directory anyway
	}
	m.mu.Unlock()
	_ = m.engine.Close() // a reaper only stops its own goroutine
}

// endAll stops and closes procs, all at once.
func (m *Manager) endAll(ctx context.Context, procs []*Process) {
	var wg sync.WaitGroup
	for _, p := range procs {
		wg.Go(func() {
			if !p.Ended() {
				_, _ = p.Stop(ctx, syscall.SIGTERM, m.timing.shutdownGrace, EndedByShutdown)
			}
			p.Close()
		})
	}
	wg.Wait()
}

// Stats is the Manager's own state.
type Stats struct {
	StartedAt      time.Time
	Running, Total int
}

// Stats returns the Manager's own state.
func (m *Manager) Stats() Stats {
	m.mu.Lock()
	defer m.mu.Unlock()
	st := Stats{StartedAt: m.startedAt, Total: len(m.reg.order)}
	for _, p := range m.reg.order {
		if !p.Ended() {
			st.Running++
		}
	}
	return st
}

// LogPath returns the file p's log is written to, or "" when logs are not
// written to disk.
func (m *Manager) LogPath(p *Process) string {
	if m.disk == nil {
		return ""
	}
	return m.disk.Path(p.ID, p.Name)
}

// TailCommand returns a shell command that follows p's log file as it
// grows (across rotations), or "" when logs are not written to disk.
func (m *Manager) TailCommand(p *Process) string {
	path := m.LogPath(p)
	if path == "" {
		return ""
	}
	return disklog.TailCommand(path)
}
