package session

import (
	"context"

	"github.com/yieldshell/yieldshell/internal/outlog"
	"github.com/yieldshell/yieldshell/internal/policy"
	"github.com/yieldshell/yieldshell/internal/pty"
)

// newProcess follows proc, just started from spec: it starts the readers of
// its output, the waiter that follows it to its end, in PTY mode the writer
// of the terminal's replies, and the writer of exec's stdin. Close joins
// them all. onEnd is called once the end is visible.
func newProcess(id string, spec *startSpec, proc *pty.Process, capacity int, secrets []policy.Secret, onEnd func(*Process)) *Process {
	feed := spec.Stdin != "" || spec.CloseStdin
	p := &Process{
		ID:        id,
		Name:      spec.Name,
		Command:   spec.Command,
		Cwd:       spec.cwd,
		Pid:       proc.Pid(),
		TTY:       proc.TTY(),
		StartedAt: spec.startedAt,
		tag:       spec.tag,
		proc:      proc,
		timing:    spec.timing,
		hooks:     endHooks{releaseSlot: spec.releaseSlot, onEnd: onEnd},
		w:         newWaiter(spec.timeout),
		streams:   streams{eof: make(chan struct{}), open: 1},
		changed:   make(chan struct{}),
		log:       outlog.New(capacity),
		in:        inputTracker{prober: spec.prober, lastOutput: spec.startedAt, feeding: feed, integrated: spec.integrated},
	}
	p.in.kernel = procKernel{p}
	p.life, p.endLife = context.WithCancel(context.Background())
	list := newSecretList(secrets)
	p.out.secrets = list
	if p.TTY {
		cols, rows := proc.Size()
		p.out = newTerminalPipeline(int(cols), int(rows), list)
		go p.out.replies.run(p.life, p.deliverReply)
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
