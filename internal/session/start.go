package session

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/yieldshell/yieldshell/internal/outlog"
	"github.com/yieldshell/yieldshell/internal/policy"
	"github.com/yieldshell/yieldshell/internal/shellinit"
	"github.com/yieldshell/yieldshell/pty"
)

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
	if spec.Host != "" && spec.Name != "" {
		spec.Name += "@" + spec.Host // a name says the host, as the id does
	}
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
		m.reg.releaseName(spec.Name, claimAbandoned)
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
	host    string // another host's (remote.go)
	secrets []policy.Secret
	sandbox *sandboxRun // nil: unconfined
}

// prepare applies policy in the spec's order (side effects, command
// regexes, cwd; the process limit comes with the reservation) and resolves
// the shell, the terminal size, the environment and shell integration.
// Nothing is reserved or started. A refusal quotes the command, cwd or
// shell, which may carry a secret: it is redacted as every answer is.
func (m *Manager) prepare(spec Spec) (*launch, error) {
	secrets := m.cfg.Secrets(m.baseSecrets, overlayEnv(spec.Env))
	l, err := m.resolve(spec, secrets)
	if err != nil {
		return nil, policy.RedactError(secrets, err)
	}
	return l, nil
}

// resolve is prepare before its errors are redacted.
func (m *Manager) resolve(spec Spec, secrets []policy.Secret) (*launch, error) {
	if spec.Host != "" {
		return m.resolveRemote(spec, secrets)
	}
	cwd, err := m.checkPolicy(spec, secrets)
	if err != nil {
		return nil, err
	}
	shell, isDefault, err := m.shellFor(spec)
	if err != nil {
		return nil, err
	}
	if err := m.sizeScreen(&spec); err != nil {
		return nil, err
	}
	l := &launch{spec: spec, id: newID()}
	tag := m.tag + l.id
	line, env := spec.Command, m.environ(spec, tag)
	integrated := false
	if spec.TTY {
		if il, extra, ok, err := m.integrateShell(spec.Command); err != nil {
			m.log.Warn("shell integration unavailable", "error", err)
		} else if ok {
			line, env, integrated = il, append(env, extra...), true
		}
	}
	argv, env := policy.CommandArgv(shell, line, isDefault && !integrated, spec.TTY, env, cwd)
	// The seam for what wraps a command (a sandbox helper that confines the
	// child, then execs argv; a remote executor): it takes argv as decided
	// here and prepends itself, so that nothing else in the start path
	// needs to know.
	l.opts = pty.Options{
		Path: argv.Path,
		Args: argv.Args,
		Dir:  cwd,
		Env:  env,
		TTY:  spec.TTY,
		Cols: spec.Cols,
		Rows: spec.Rows,
	}
	l.opts.DirWas = spec.ShownCwd.fileInfo() // the directory a person approved (shown.go)
	l.secrets = secrets
	if err := m.confine(l, spec); err != nil {
		return nil, err
	}
	l.ss = &startSpec{Spec: spec, cwd: cwd, tag: tag, timeout: spec.Timeout, releaseSlot: m.release, prober: m.prober, timing: &m.timing, integrated: integrated,
		sharePersonSecret: m.sharePersonSecret, lateOutput: m.lateOutput, sandbox: l.sandbox}
	// The command line itself may carry a secret (a token pasted into a
	// curl header): ps and every answer show it redacted.
	l.ss.Command = policy.Redact(l.secrets, spec.Command)
	l.ss.Name = policy.Redact(l.secrets, spec.Name)
	return l, nil
}

// shellFor returns the program that runs spec's command line: the
// server's shell (bash where installed: policy.DefaultShell) unless the
// spec names another, and whether it is the server's.
func (m *Manager) shellFor(spec Spec) (shell string, isDefault bool, err error) {
	s := strings.TrimSpace(spec.Shell)
	if s == "" {
		return m.cfg.DefaultShell(), true, nil
	}
	if shell, err = exec.LookPath(s); err != nil {
		return "", false, fmt.Errorf("finding shell %q: %w", s, err)
	}
	return shell, false, m.cfg.CheckShell(shell)
}

// spawn starts the prepared command and the Process that follows it; the
// Process reports its end only once registered is closed.
func (m *Manager) spawn(ctx context.Context, l *launch, registered <-chan struct{}) (*Process, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := l.sandbox.open(&m.tmps, &l.opts); err != nil {
		return nil, err
	}
	engine := m.engine
	if l.host != "" {
		var err error
		if engine, l.ss.prober, err = m.hostEngine(ctx, l.host); err != nil {
			return nil, err
		}
	}
	l.ss.startedAt = time.Now()
	proc, err := engine.Start(ctx, l.opts)
	if err != nil {
		l.sandbox.close()
		return nil, err
	}
	if l.sandbox != nil {
		l.sandbox.started(ctx)
		m.tmps.refill() // the next confined start's, while this one runs
	}
	secrets := append(slices.Clip(l.secrets), m.personSecretList()...)
	return newProcess(l.id, l.ss, proc, m.cfg.Limits.BufferBytes, secrets, func(p *Process, final Info) {
		<-registered
		m.ended(p, final)
	}), nil
}

// newProcess follows proc, just started from spec: it starts the readers of
// its output, the waiter that follows it to its end, in PTY mode the writer
// of the terminal's replies, and the writer of exec's stdin. Close joins
// them all. onEnd is called with the final state once it is visible.
func newProcess(id string, spec *startSpec, proc EngineProcess, capacity int, secrets []policy.Secret, onEnd func(*Process, Info)) *Process {
	feed := spec.Stdin != "" || spec.CloseStdin
	p := &Process{
		ID:        id,
		Name:      spec.Name,
		Command:   spec.Command,
		Cwd:       spec.cwd,
		Host:      spec.Host,
		Pid:       proc.Pid(),
		TTY:       proc.TTY(),
		StartedAt: spec.startedAt,
		tag:       spec.tag,
		timing:    spec.timing,
		hooks:     endHooks{releaseSlot: spec.releaseSlot, onEnd: onEnd},
		w:         newWaiter(spec.timeout),
		streams:   streams{open: 1},
		changed:   make(chan struct{}),
		log:       outlog.New(capacity),
		in:        inputTracker{prober: spec.prober, lastOutput: spec.startedAt, feeding: feed, integrated: spec.integrated},
	}
	life, endLife := context.WithCancel(context.Background())
	p.eng.Store(&engineRef{EngineProcess: proc, life: life, endLife: endLife})
	p.sharePersonSecret, p.lateOutput = spec.sharePersonSecret, spec.lateOutput
	p.sandbox = spec.sandbox
	list := newSecretList(secrets)
	p.out.secrets = list
	if p.TTY {
		cols, rows := proc.Size()
		p.out = newTerminalPipeline(int(cols), int(rows), list)
		go p.out.replies.run(life, p.deliverReply)
	}
	stderr := proc.Stderr()
	if stderr != nil {
		p.streams.open = 2
	}
	p.streams.readers.Add(p.streams.open)
	go p.read(proc.Stdout(), newStreamReader(Stdout, p.TTY, list))
	if stderr != nil {
		go p.read(stderr, newStreamReader(Stderr, p.TTY, list))
	}
	go p.wait()
	if feed {
		p.streams.readers.Add(1)
		go p.writeInitial(spec.Stdin, spec.CloseStdin)
	}
	return p
}

// register records a spawned process and hands it its reserved slot; if
// shutdown began meanwhile, it kills the process instead.
func (m *Manager) register(ctx context.Context, p *Process, l *launch, o startOpts, registered chan struct{}) (*Process, error) {
	m.mu.Lock()
	late := m.shutdown
	typed := slices.Clone(m.typed)
	if !late {
		m.reg.procs[p.ID] = p
		m.reg.order = append(m.reg.order, p)
		m.reg.live[p] = struct{}{}
		m.reg.runs[p.ID] = &runRecord{spec: l.spec.once(), attempt: o.attempt, settled: make(chan struct{})}
		if m.disk != nil {
			m.disk.Follow(p.diskRun())
		}
	}
	switch {
	case late:
		m.reg.releaseName(l.spec.Name, claimAbandoned)
	case o.restart:
		m.reg.releaseName(l.spec.Name, claimRestarted)
	default:
		m.reg.releaseName(l.spec.Name, claimStarted)
	}
	var old []*Process
	if !late {
		old = m.reg.trimRuns(l.spec.Name, m.keep.runsPerName)
	}
	m.mu.Unlock()
	p.addSecrets(humanSecretName, typed...) // those shared since spawn; known ones are skipped
	if len(old) > 0 {
		m.log.Debug("forgot old runs", "name", l.spec.Name, "count", len(old))
	}
	for _, q := range old {
		q.Close()
	}
	close(registered)
	m.watch.signal()
	if late {
		// Shutdown began while this one was starting and will not see it.
		// The kill is seen through even when ctx ended with that shutdown
		// (a crash restart's is the Manager's): it is bounded by killWait.
		_, _ = p.Stop(context.WithoutCancel(ctx), syscall.SIGKILL, 0, EndedByShutdown)
		p.Close()
		return nil, ErrShuttingDown
	}
	m.log.Debug("started", "process_id", p.ID, "pid", p.Pid, "tty", p.TTY)
	return p, nil
}

// integrateShell sets up shell integration when command starts an
// interactive shell we can integrate (see package shellinit).
func (m *Manager) integrateShell(command string) (string, []string, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !shellinit.IsShellCommand(command) {
		return "", nil, false, nil
	}
	if m.shellDir != "" {
		// Checked before every shell: recreated if a tmp cleaner removed
		// it, abandoned for a new one if anyone else could have changed it.
		if err := shellinit.PrepareDir(m.shellDir); err != nil {
			m.log.Warn("not using the shell-integration directory any more", "dir", m.shellDir, "error", err)
			m.shellDir = ""
		}
	}
	if m.shellDir == "" {
		dir, err := NewTempDir("shell")
		if err != nil {
			return "", nil, false, fmt.Errorf("creating shell-integration directory: %w", err)
		}
		m.shellDir = dir
	}
	return shellinit.Integrate(command, m.shellDir)
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
		m.reg.releaseName(name, claimAbandoned)
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

// ended is each process's end callback; final is its state as it ended.
func (m *Manager) ended(p *Process, final Info) {
	m.log.Debug("ended", "process_id", p.ID)
	m.afterEnd(p, final)
	m.mu.Lock()
	delete(m.reg.live, p)
	m.reg.countEnded(p, m.keep.endedBytes)
	m.mu.Unlock()
	m.watch.signal()
}

// environ builds the child's environment: the server's, then what makes a
// terminal session behave for an agent, then the caller's overlay, which
// wins over both, and last the containment tag, which nothing overrides (a
// server started by a command inherits its parent's tag and must replace
// it).
func (m *Manager) environ(spec Spec, tag string) []string { return environ(m.baseEnv, spec, tag) }

func environ(base []string, spec Spec, tag string) []string {
	env := slices.Clone(base)
	env = append(env, "PAGER=cat", "GIT_PAGER=cat")
	if spec.TTY {
		env = append(env, "TERM=xterm-256color")
	}
	env = append(env, overlayEnv(spec.Env)...)
	env = append(env, tagKey+"="+tag)
	return policy.DedupEnv(env)
}

func overlayEnv(m map[string]string) []string {
	env := make([]string, 0, len(m))
	for k, v := range m {
		env = append(env, k+"="+v)
	}
	slices.Sort(env)
	return env
}

func newID() string {
	var b [6]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return "proc_" + hex.EncodeToString(b[:])
}

// afterEnd records how a named run ended (in, its final state) and
// schedules a crash restart when its policy calls for one. It runs in the
// ended process's waiter, without the process's lock.
func (m *Manager) afterEnd(p *Process, in Info) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r := m.reg.runs[p.ID]
	if r == nil {
		return
	}
	defer close(r.settled)
	ns := m.reg.names[p.Name]
	if p.Name == "" || ns == nil {
		return
	}
	ns.last = &Exit{ProcessID: p.ID, Code: in.ExitCode, Signal: in.Signal, EndedBy: in.EndedBy}
	attempt, due := r.spec.Restart.due(r.attempt, in, m.timing.healthyRun)
	if !due || m.shutdown || m.reg.byName(p.Name) != p || ns.pending != nil || ns.starting {
		return
	}
	delay := max(r.spec.Restart.backoff(attempt), m.timing.restartFloor)
	pr := &pendingRestart{cancel: make(chan struct{}), done: make(chan struct{})}
	ns.pending = pr
	r.restart = pr
	spec := r.spec
	m.restarts.Go(func() {
		defer close(pr.done)
		t := time.NewTimer(delay)
		defer t.Stop()
		select {
		case <-t.C:
		case <-pr.cancel:
			return
		case <-m.life.Done():
			return
		}
		// On the Manager's context: Shutdown cancels it, and waits for
		// this goroutine before it ends the processes.
		np, err := m.start(m.life, spec, startOpts{restart: true, attempt: attempt + 1, pending: pr})
		if err != nil {
			if !errors.Is(err, errRestartCancelled) && m.life.Err() == nil {
				m.log.Warn("crash restart failed", "name", spec.Name, "error", err)
			}
			return
		}
		pr.next = np
		m.log.Info("restarted after a crash", "name", spec.Name, "process_id", np.ID, "attempt", attempt+1)
	})
}

// sizeScreen fills in the default terminal size and checks a terminal's
// against the screen limit.
func (m *Manager) sizeScreen(spec *Spec) error {
	if spec.Cols == 0 {
		spec.Cols = DefaultCols
	}
	if spec.Rows == 0 {
		spec.Rows = DefaultRows
	}
	if spec.TTY {
		return m.cfg.CheckScreen(int(spec.Cols), int(spec.Rows))
	}
	return nil
}
