package session

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/yieldshell/yieldshell/policy"
	"github.com/yieldshell/yieldshell/prompt"
	"github.com/yieldshell/yieldshell/pty"
)

// ErrUnknownProcess is returned for an id (or name) the Manager does not know.
var ErrUnknownProcess = errors.New("unknown process_id")

// ErrShuttingDown refuses new processes once shutdown began.
var ErrShuttingDown = errors.New("server is shutting down")

// Default terminal size: wide enough that agents' usual output does not wrap.
const (
	DefaultCols = 120
	DefaultRows = 40
)

// Spec describes a command to start.
type Spec struct {
	Command     string
	SideEffects []string
	Cwd         string
	Env         map[string]string
	Shell       string // program that runs Command with -c; "" means /bin/sh
	Stdin       string
	CloseStdin  bool
	Name        string        // normalised by Start (NormalizeName)
	Restart     RestartPolicy // crash restarts; needs a Name
	Timeout     time.Duration // 0 means none
	TTY         bool
	Cols, Rows  uint16
}

// startSpec is a Spec after policy, with what was resolved.
type startSpec struct {
	Spec
	cwd       string
	tag       string // value of tagKey for this process and its descendants
	timeout   time.Duration
	startedAt time.Time
	// releaseSlot frees the process's place under the process limit.
	releaseSlot func()
	prober      *prompt.Prober
	timing      timing
}

// Manager is the registry of processes. It is safe for concurrent use.
type Manager struct {
	cfg     *policy.Config
	reaper  *pty.Reaper
	log     *slog.Logger
	ctx     context.Context
	baseEnv []string
	tag     string // this server's tag prefix, "<pid>:<start>:"
	prober  *prompt.Prober
	timing  timing
	keep    retention

	startedAt time.Time
	disk      *diskLog // nil unless YIELDSHELL_LOG_DIR is set
	quit      chan struct{}
	restarts  sync.WaitGroup // pending crash restarts (restart.go)
	janitor   sync.WaitGroup // purges old records (purge.go)
	writers   sync.WaitGroup // copy logs to disk (disklog.go)

	mu       sync.Mutex
	shellDir string // private directory of shell-integration files; "" until needed
	reg      registry
	running  int // started and not yet ended, including reservations
	shutdown bool
}

// NewManager returns a Manager and starts its reaper: from then on it reaps
// every child of this process, so nothing else in the process may wait for
// children of its own. ctx bounds the life of everything it starts.
// Shutdown releases it. A server calls [SweepOrphans] first.
func NewManager(ctx context.Context, cfg *policy.Config, log *slog.Logger) (*Manager, error) {
	reaper, err := pty.NewReaper()
	if err != nil {
		return nil, fmt.Errorf("starting reaper: %w", err)
	}
	env := os.Environ()
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	self, err := pty.StartTime(os.Getpid())
	if err != nil {
		return nil, fmt.Errorf("reading our own start time: %w", err)
	}
	m := &Manager{
		tag:       fmt.Sprintf("%d:%d:", os.Getpid(), self),
		cfg:       cfg,
		reaper:    reaper,
		log:       log,
		ctx:       ctx,
		baseEnv:   env,
		prober:    prompt.NewProber(),
		timing:    defaultTiming(),
		keep:      defaultRetention(),
		startedAt: time.Now(),
		quit:      make(chan struct{}),
		reg:       newRegistry(),
	}
	if cfg.LogDir != "" {
		m.disk = newDiskLog(cfg.LogDir, cfg.LogMaxBytes)
	}
	m.startJanitor()
	return m, nil
}

// startOpts says how a run comes about.
type startOpts struct {
	restart bool            // by the restart tool or a crash restart
	attempt int             // crash restarts in a row before this run
	pending *pendingRestart // the crash restart this start carries out
}

// Start applies policy in the spec's order (side effects, command regexes,
// cwd, process limit) and starts the command. A policy refusal is a
// *policy.Refusal; nothing was started then.
func (m *Manager) Start(ctx context.Context, spec Spec) (*Process, error) {
	spec.Name = NormalizeName(spec.Name)
	if spec.Restart.MaxRetries > 0 && spec.Name == "" {
		return nil, ErrNameNeeded
	}
	return m.start(ctx, spec, startOpts{})
}

func (m *Manager) start(ctx context.Context, spec Spec, o startOpts) (*Process, error) {
	l, err := m.prepare(spec)
	if err != nil {
		return nil, err
	}
	if err := m.reserve(spec.Name, o.pending); err != nil {
		return nil, err
	}
	// A fast command can end before it is registered: its end is handled
	// (slot, history, crash restart) only once it is.
	registered := make(chan struct{})
	p, err := m.spawn(ctx, l, registered)
	if err != nil {
		m.mu.Lock()
		m.running--
		m.reg.releaseName(spec.Name, false, false)
		m.mu.Unlock()
		return nil, err
	}
	return m.register(ctx, p, l, o, registered)
}

// launch is a start that policy allowed, with everything resolved.
type launch struct {
	spec    Spec // as asked, with the default terminal size filled in
	id      string
	opts    pty.Options
	ss      *startSpec
	secrets []policy.Secret
}

// prepare applies policy in the spec's order (side effects, command
// regexes, cwd; the process limit comes with the reservation) and resolves
// the shell, the terminal size, the environment and shell integration.
// Nothing is reserved or started. A refusal quotes the command, cwd or
// shell, which may carry a secret: it is redacted as every answer is.
func (m *Manager) prepare(spec Spec) (*launch, error) {
	secrets := m.cfg.Secrets(m.baseEnv, overlayEnv(spec.Env))
	l, err := m.resolve(spec, secrets)
	if err != nil {
		return nil, redactError(secrets, err)
	}
	return l, nil
}

// resolve is prepare before its errors are redacted.
func (m *Manager) resolve(spec Spec, secrets []policy.Secret) (*launch, error) {
	if err := m.cfg.CheckSideEffects(spec.SideEffects); err != nil {
		return nil, err
	}
	if err := m.cfg.CheckCommand(spec.Command, secrets...); err != nil {
		return nil, err
	}
	cwd, err := m.cfg.ResolveCwd(spec.Cwd)
	if err != nil {
		return nil, err
	}
	shell := "/bin/sh"
	if s := strings.TrimSpace(spec.Shell); s != "" {
		if shell, err = exec.LookPath(s); err != nil {
			return nil, fmt.Errorf("finding shell %q: %w", s, err)
		}
	}
	if spec.Cols == 0 {
		spec.Cols = DefaultCols
	}
	if spec.Rows == 0 {
		spec.Rows = DefaultRows
	}
	l := &launch{spec: spec, id: newID()}
	tag := m.tag + l.id
	line, env := spec.Command, m.environ(spec, tag)
	if spec.TTY {
		if il, extra, ok, err := m.integrateShell(spec.Command); err != nil {
			m.log.Warn("shell integration unavailable", "error", err)
		} else if ok {
			line, env = il, append(env, extra...)
		}
	}
	l.opts = pty.Options{
		Path: shell,
		Args: []string{shell, "-c", line},
		Dir:  cwd,
		Env:  env,
		TTY:  spec.TTY,
		Cols: spec.Cols,
		Rows: spec.Rows,
	}
	l.secrets = secrets
	l.ss = &startSpec{Spec: spec, cwd: cwd, tag: tag, timeout: spec.Timeout, releaseSlot: m.release, prober: m.prober, timing: m.timing}
	// The command line itself may carry a secret (a token pasted into a
	// curl header): ps and every answer show it redacted.
	l.ss.Command = redact(l.secrets, spec.Command)
	l.ss.Name = redact(l.secrets, spec.Name)
	return l, nil
}

// spawn starts the prepared command and the Process that follows it; the
// Process reports its end only once registered is closed.
func (m *Manager) spawn(ctx context.Context, l *launch, registered <-chan struct{}) (*Process, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	l.ss.startedAt = time.Now()
	proc, err := m.reaper.Start(l.opts)
	if err != nil {
		return nil, err
	}
	return newProcess(m.ctx, l.id, l.ss, proc, m.cfg.MaxBufferBytes, l.secrets, func(p *Process) {
		<-registered
		m.ended(p)
	}), nil
}

// register records a spawned process and hands it its reserved slot; if
// shutdown began meanwhile, it kills the process instead.
func (m *Manager) register(ctx context.Context, p *Process, l *launch, o startOpts, registered chan struct{}) (*Process, error) {
	m.mu.Lock()
	late := m.shutdown
	if !late {
		m.reg.procs[p.ID] = p
		m.reg.order = append(m.reg.order, p)
		m.reg.runs[p.ID] = &runRecord{spec: l.spec, attempt: o.attempt, settled: make(chan struct{})}
		m.followToDiskLocked(p)
	}
	m.reg.releaseName(l.spec.Name, !late, o.restart)
	var old []*Process
	if !late {
		old = m.trimRunsLocked(l.spec.Name)
	}
	m.mu.Unlock()
	for _, q := range old {
		q.Close()
	}
	close(registered)
	if late {
		// Shutdown began while this one was starting and will not see it.
		_, _ = p.Stop(ctx, syscall.SIGKILL, 0, EndedByShutdown)
		p.Close()
		return nil, ErrShuttingDown
	}
	m.log.Debug("started", "process_id", p.ID, "pid", p.Pid, "tty", p.TTY)
	return p, nil
}

// integrateShell sets up shell integration when command starts an
// interactive shell we can integrate (see integrateShell in shellinit.go).
func (m *Manager) integrateShell(command string) (string, []string, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.shellDir == "" {
		if !isShellCommand(command) {
			return "", nil, false, nil
		}
		dir, err := os.MkdirTemp("", "yieldshell-")
		if err != nil {
			return "", nil, false, fmt.Errorf("creating shell-integration directory: %w", err)
		}
		m.shellDir = dir
	}
	return integrateShell(command, m.shellDir)
}

// reserve takes a slot under the process limit, so that concurrent starts can
// never exceed it, and claims the name, so that no two runs of one name
// live at once.
func (m *Manager) reserve(name string, pending *pendingRestart) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.shutdown {
		return ErrShuttingDown
	}
	if err := m.reg.claimName(name, pending); err != nil {
		return err
	}
	if err := m.cfg.CheckProcessLimit(m.running); err != nil {
		m.reg.releaseName(name, false, false)
		return err
	}
	m.running++
	return nil
}

func (m *Manager) release() {
	m.mu.Lock()
	m.running--
	m.mu.Unlock()
}

// ended is each process's end callback.
func (m *Manager) ended(p *Process) {
	m.log.Debug("ended", "process_id", p.ID)
	m.afterEnd(p)
	m.mu.Lock()
	m.fitEndedOutputLocked()
	m.mu.Unlock()
}

// environ builds the child's environment: the server's, then what makes a
// terminal session behave for an agent, then the caller's overlay, which
// wins over both, and last the containment tag, which nothing overrides (a
// server started by a command inherits its parent's tag and must replace
// it).
func (m *Manager) environ(spec Spec, tag string) []string {
	env := slices.Clone(m.baseEnv)
	env = append(env, "PAGER=cat", "GIT_PAGER=cat")
	if spec.TTY {
		env = append(env, "TERM=xterm-256color")
	}
	env = append(env, overlayEnv(spec.Env)...)
	env = append(env, tagKey+"="+tag)
	return dedupEnv(env)
}

func overlayEnv(m map[string]string) []string {
	env := make([]string, 0, len(m))
	for k, v := range m {
		env = append(env, k+"="+v)
	}
	slices.Sort(env)
	return env
}

// dedupEnv keeps the last value of each variable.
func dedupEnv(env []string) []string {
	seen := make(map[string]int, len(env))
	out := env[:0]
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if i, ok := seen[k]; ok {
			out[i] = kv
			continue
		}
		seen[k] = len(out)
		out = append(out, kv)
	}
	return out
}

func newID() string {
	var b [6]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return "proc_" + hex.EncodeToString(b[:])
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
	m.mu.Unlock()
	for _, p := range removed {
		p.Close()
	}
	return len(removed)
}

// Shutdown ends every running process (SIGTERM to each group, SIGKILL after
// a short grace), refuses new ones, and closes everything, the reaper last.
// It returns once all processes are reaped and all goroutines joined, or
// ctx is done.
func (m *Manager) Shutdown(ctx context.Context) {
	m.mu.Lock()
	if !m.shutdown {
		m.shutdown = true
		close(m.quit)
	}
	m.mu.Unlock()
	// No crash restart can start after this, and none is half-way.
	m.restarts.Wait()
	m.janitor.Wait()
	m.mu.Lock()
	procs := slices.Clone(m.reg.order)
	m.mu.Unlock()
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
	m.writers.Wait() // every process ended, so every writer finishes
	// Descendants that escaped processes which had already ended.
	endTagged(ctx, func(v string) bool { return strings.HasPrefix(v, m.tag) }, m.timing.shutdownGrace)
	m.mu.Lock()
	if m.shellDir != "" {
		_ = os.RemoveAll(m.shellDir) // in the temporary directory anyway
	}
	m.mu.Unlock()
	_ = m.reaper.Close() // it only stops its own goroutine
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
