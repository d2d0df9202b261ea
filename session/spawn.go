package session

import (
	"context"

	"github.com/yieldshell/yieldshell/policy"
	"github.com/yieldshell/yieldshell/pty"
)

func newProcess(id string, spec *startSpec, proc *pty.Process, capacity int, secrets []policy.Secret, onEnd func(*Process)) *Process {
	p := &Process{
		ID:          id,
		Name:        spec.Name,
		Command:     spec.Command,
		Cwd:         spec.cwd,
		Pid:         proc.Pid(),
		TTY:         proc.TTY(),
		StartedAt:   spec.startedAt,
		tag:         spec.tag,
		proc:        proc,
		onEnd:       onEnd,
		releaseSlot: spec.releaseSlot,
		timeout:     spec.timeout,
		timing:      spec.timing,
		waiterEnd:   make(chan struct{}),
		eof:         make(chan struct{}),
		stopWait:    make(chan struct{}),
		kick:        make(chan struct{}, 1),
		changed:     make(chan struct{}),
		log:         newOutputLog(capacity),
		in: inputTracker{
			prober:     spec.prober,
			lastOutput: spec.startedAt,
			feeding:    spec.Stdin != "" || spec.CloseStdin,
		},
	}
	p.in.kernel = procKernel{p}
	p.life, p.endLife = context.WithCancel(context.Background())
	if p.TTY {
		cols, rows := proc.Size()
		p.out = newTerminalPipeline(int(cols), int(rows), secrets)
		go p.out.replies.run(p.life, p.proc.WriteInput)
	}
	p.openEOF = 1
	if proc.Stderr() != nil {
		p.openEOF = 2
	}
	p.readers.Add(p.openEOF)
	go p.read(proc.Stdout(), Stdout, policy.NewRedactor(secrets))
	if r := proc.Stderr(); r != nil {
		go p.read(r, Stderr, policy.NewRedactor(secrets))
	}
	go p.wait()
	if spec.Stdin != "" || spec.CloseStdin {
		p.readers.Add(1)
		go p.writeInitial(spec.Stdin, spec.CloseStdin)
	}
	return p
}
