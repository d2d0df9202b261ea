package session

import (
	"slices"
	"syscall"
	"testing"
	"testing/synctest"
	"time"
)

// The phase only moves forward, and every move wakes the waiters.
func TestPhaseOnlyMovesForward(t *testing.T) {
	p := &Process{changed: make(chan struct{})}
	steps := []struct {
		to   phase
		want bool
	}{
		{phaseExited, true},
		{phaseRunning, false},
		{phaseExited, false},
		{phaseEnded, true},
		{phaseFinishing, false},
	}
	for _, s := range steps {
		ch := p.changedLocked()
		if got := p.advanceLocked(s.to); got != s.want {
			t.Fatalf("advance to %s from %s = %v, want %v", s.to, p.lc.phase, got, s.want)
		}
		select {
		case <-ch:
			if !s.want {
				t.Fatalf("a refused move to %s woke the waiters", s.to)
			}
		default:
			if s.want {
				t.Fatalf("the move to %s did not wake the waiters", s.to)
			}
		}
	}
	if p.lc.status() != Completed {
		t.Errorf("status after an end nobody caused = %s, want %s", p.lc.status(), Completed)
	}
}

// The tests below run the lifecycle over the fake engine in a synctest
// bubble: every time is exact, counted from the start of the command.

const msec = time.Millisecond

func ev(at time.Duration, op string, sig syscall.Signal) fakeEvent {
	return fakeEvent{at: at, op: op, sig: sig}
}

// startFake starts one command on m and returns it with its fake.
func startFake(t *testing.T, m *Manager, e *fakeEngine, s Spec) (*Process, *fakeProc) {
	t.Helper()
	p, err := m.Start(t.Context(), s)
	if err != nil {
		t.Fatal(err)
	}
	procs := e.started()
	return p, procs[len(procs)-1]
}

// Spec: stop sends SIGTERM to the tree, hangs up the terminal's session
// members that ignore it (again after hangUpRetry, in PTY mode), and sends
// SIGKILL when the grace runs out; it returns once the process ended.
func TestStopEscalation(t *testing.T) {
	tests := []struct {
		name    string
		tty     bool
		grace   time.Duration
		setup   func(*fakeProc)
		at      time.Duration // when Stop returns, and the process's duration
		want    StopResult
		signal  string // Info.Signal
		signals []fakeEvent
	}{
		{"pipes: SIGTERM ends it", false, time.Second, nil,
			0, StopResult{Gone: true}, "SIGTERM",
			[]fakeEvent{ev(0, "tree", syscall.SIGTERM), ev(0, "hangup", syscall.SIGTERM)}},
		{"pipes: SIGKILL at the grace", false, time.Second, func(f *fakeProc) { f.ignore(syscall.SIGTERM) },
			time.Second, StopResult{Gone: true, Killed: true}, "SIGKILL",
			[]fakeEvent{ev(0, "tree", syscall.SIGTERM), ev(0, "hangup", syscall.SIGTERM), ev(time.Second, "tree", syscall.SIGKILL)}},
		{"pty: the hang-up again at 250 ms, then SIGKILL at the grace", true, time.Second, func(f *fakeProc) { f.ignore(syscall.SIGTERM) },
			time.Second, StopResult{Gone: true, Killed: true}, "SIGKILL",
			[]fakeEvent{ev(0, "tree", syscall.SIGTERM), ev(0, "hangup", syscall.SIGTERM), ev(250*msec, "hangup", syscall.SIGTERM), ev(time.Second, "tree", syscall.SIGKILL)}},
		{"pty: a shell that missed the first hang-up dies of the second", true, time.Second,
			func(f *fakeProc) { f.ignore(syscall.SIGTERM); f.hangUpDies = 2 },
			250 * msec, StopResult{Gone: true}, "SIGHUP",
			[]fakeEvent{ev(0, "tree", syscall.SIGTERM), ev(0, "hangup", syscall.SIGTERM), ev(250*msec, "hangup", syscall.SIGTERM)}},
		{"pty: a grace shorter than the retry: SIGKILL first, no second hang-up", true, 200 * msec, func(f *fakeProc) { f.ignore(syscall.SIGTERM) },
			200 * msec, StopResult{Gone: true, Killed: true}, "SIGKILL",
			[]fakeEvent{ev(0, "tree", syscall.SIGTERM), ev(0, "hangup", syscall.SIGTERM), ev(200*msec, "tree", syscall.SIGKILL)}},
		{"pipes: a tree SIGKILL cannot end: Stop gives up killWait after it", false, time.Second,
			func(f *fakeProc) { f.ignore(syscall.SIGTERM, syscall.SIGKILL) },
			3 * time.Second, StopResult{Killed: true}, "",
			[]fakeEvent{ev(0, "tree", syscall.SIGTERM), ev(0, "hangup", syscall.SIGTERM), ev(time.Second, "tree", syscall.SIGKILL)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				m, e, _ := fakeManager(t, nil, tt.setup)
				p, f := startFake(t, m, e, spec("sleep 30", tt.tty))
				res, err := p.Stop(t.Context(), syscall.SIGTERM, tt.grace, EndedByStop)
				if err != nil {
					t.Fatal(err)
				}
				if got := time.Since(f.start); got != tt.at {
					t.Errorf("Stop returned after %v, want %v", got, tt.at)
				}
				if res != tt.want {
					t.Errorf("Stop = %+v, want %+v", res, tt.want)
				}
				if got := f.signals(); !slices.Equal(got, tt.signals) {
					t.Errorf("signals %v, want %v", got, tt.signals)
				}
				in := p.Info()
				if !tt.want.Gone {
					if in.Status != Running {
						t.Errorf("status %s, want running", in.Status)
					}
					return
				}
				if in.Status != Stopped || in.EndedBy != EndedByStop || in.Signal != tt.signal || in.Duration != tt.at {
					t.Errorf("info %s/%s/%s after %v, want stopped/stop/%s after %v", in.Status, in.EndedBy, in.Signal, in.Duration, tt.signal, tt.at)
				}
			})
		})
	}
}

// Spec: timeout_ms sends SIGTERM to the tree when it passes and SIGKILL
// YIELDSHELL_TIMEOUT_GRACE_MS later (2 s by default); the process ends
// timed_out.
func TestTimeoutEscalation(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		setup   func(*fakeProc)
		at      time.Duration // the end
		signal  string
		signals []fakeEvent
	}{
		{"SIGTERM ends it", nil, nil,
			3 * time.Second, "SIGTERM", []fakeEvent{ev(3*time.Second, "tree", syscall.SIGTERM)}},
		{"SIGKILL after the default grace", nil, func(f *fakeProc) { f.ignore(syscall.SIGTERM) },
			5 * time.Second, "SIGKILL", []fakeEvent{ev(3*time.Second, "tree", syscall.SIGTERM), ev(5*time.Second, "tree", syscall.SIGKILL)}},
		{"SIGKILL after the configured grace", map[string]string{"YIELDSHELL_TIMEOUT_GRACE_MS": "500"}, func(f *fakeProc) { f.ignore(syscall.SIGTERM) },
			3500 * msec, "SIGKILL", []fakeEvent{ev(3*time.Second, "tree", syscall.SIGTERM), ev(3500*msec, "tree", syscall.SIGKILL)}},
	}
	for _, tt := range tests {
		for _, tty := range []bool{false, true} {
			t.Run(tt.name+map[bool]string{false: "/pipes", true: "/pty"}[tty], func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					m, e, _ := fakeManager(t, tt.env, tt.setup)
					s := spec("sleep 30", tty)
					s.Timeout = 3 * time.Second
					p, f := startFake(t, m, e, s)
					if r := p.WaitEnd(t.Context(), time.Now().Add(time.Minute)); r != ReasonExited {
						t.Fatalf("WaitEnd: %s", r)
					}
					if got := time.Since(f.start); got != tt.at {
						t.Errorf("ended after %v, want %v", got, tt.at)
					}
					if got := f.signals(); !slices.Equal(got, tt.signals) {
						t.Errorf("signals %v, want %v", got, tt.signals)
					}
					in := p.Info()
					if in.Status != TimedOut || in.EndedBy != EndedByTimeout || in.Signal != tt.signal || in.Duration != tt.at {
						t.Errorf("info %s/%s/%s after %v, want timed_out/timeout/%s after %v", in.Status, in.EndedBy, in.Signal, in.Duration, tt.signal, tt.at)
					}
				})
			})
		}
	}
}

// Spec: a command is over once its direct child exited, its output is
// drained (EOF, or drainGrace after the exit) and nothing of its tree is
// left; while the tree lives, the command counts as detached from
// drainGrace after the exit on, and stays running.
func TestEndWatching(t *testing.T) {
	tests := []struct {
		name     string
		setup    func(*fakeProc)
		then     func(*fakeProc) // at 1 s
		detached time.Duration   // 0: never
		at       time.Duration   // the end
		leftOpen bool
	}{
		{"exit and EOF: over at once", nil, nil, 0, 100 * msec, false},
		{"output held outside the tree: over after the drain grace", func(f *fakeProc) { f.holdOutput() }, nil,
			0, 350 * msec, true},
		// A reader of ours behind on a loaded machine: the grace waits for
		// it (in steps of the grace), so no output is lost to the answer.
		{"output unread past the grace: over once it is read", func(f *fakeProc) { f.holdOutput(); f.setPending(true) },
			func(f *fakeProc) { f.setPending(false) }, 0, 1100 * msec, true},
		{"a descendant holds the output: detached, over when it ends", func(f *fakeProc) { f.spawnChild(true) }, (*fakeProc).endChild,
			350 * msec, time.Second, false},
		{"a descendant without the output: detached, over when it ends", func(f *fakeProc) { f.spawnChild(false) }, (*fakeProc).endChild,
			350 * msec, time.Second, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				m, e, _ := fakeManager(t, nil, tt.setup)
				p, f := startFake(t, m, e, spec("sleep 30", true))
				time.Sleep(100 * msec) // the fake clock: the command exits at 100 ms
				f.exit(0)
				if tt.detached != 0 {
					if o := p.Await(t.Context(), time.Now().Add(time.Minute), Until{Detached: true}); o.Reason != ReasonDetached {
						t.Fatalf("Await(detached): %s", o.Reason)
					}
					if got := time.Since(f.start); got != tt.detached {
						t.Errorf("detached after %v, want %v", got, tt.detached)
					}
					if in := p.Info(); in.Status != Running {
						t.Errorf("detached: status %s, want running", in.Status)
					}
				}
				if tt.then != nil {
					time.Sleep(time.Second - time.Since(f.start))
					tt.then(f)
				}
				if r := p.WaitEnd(t.Context(), time.Now().Add(time.Minute)); r != ReasonExited {
					t.Fatalf("WaitEnd: %s", r)
				}
				in := p.Info()
				if in.Duration != tt.at || in.Status != Completed || in.OutputLeftOpen != tt.leftOpen {
					t.Errorf("ended %s after %v, output left open %v; want completed after %v, %v", in.Status, in.Duration, in.OutputLeftOpen, tt.at, tt.leftOpen)
				}
			})
		})
	}
}

// Spec: a crash restart waits the policy's back-off (delay, doubled each
// time) after the crash, on the Manager's context.
func TestCrashRestartSchedule(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m, e, _ := fakeManager(t, nil, func(f *fakeProc) { f.exit(1) })
		s := spec("false", false)
		s.Name = "crashy"
		s.Restart = RestartPolicy{MaxRetries: 2, Delay: 300 * msec}
		start := time.Now()
		p, err := m.Start(t.Context(), s)
		if err != nil {
			t.Fatal(err)
		}
		for range 2 {
			if p = m.NextRun(t.Context(), p, time.Now().Add(time.Minute)); p == nil {
				t.Fatal("no next run")
			}
		}
		time.Sleep(time.Minute)
		var starts []time.Duration
		for _, f := range e.started() {
			starts = append(starts, f.start.Sub(start))
		}
		if want := []time.Duration{0, 300 * msec, 900 * msec}; !slices.Equal(starts, want) {
			t.Errorf("runs started at %v, want %v", starts, want)
		}
		// The end hook recorded each run's final state.
		if h := m.History(p); h.Restarts != 2 || h.LastExit == nil || h.LastExit.ProcessID != p.ID || *h.LastExit.Code != 1 || h.LastExit.EndedBy != EndedByExit {
			t.Errorf("history %+v, want 2 restarts, the last run exiting 1", h)
		}
		e.mu.Lock()
		restartCtx := e.ctxs[1]
		e.mu.Unlock()
		if restartCtx.Err() != nil {
			t.Fatal("the restart's context is done before shutdown")
		}
		m.Shutdown(t.Context())
		if restartCtx.Err() == nil {
			t.Error("the restart's context outlived the Manager's shutdown")
		}
	})
}

// Shutdown cancels a pending crash restart at once, and none starts later.
func TestShutdownCancelsPendingRestart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m, e, _ := fakeManager(t, nil, func(f *fakeProc) { f.exit(1) })
		s := spec("false", false)
		s.Name = "crashy"
		s.Restart = RestartPolicy{MaxRetries: 2, Delay: 300 * msec}
		p, err := m.Start(t.Context(), s)
		if err != nil {
			t.Fatal(err)
		}
		if r := p.WaitEnd(t.Context(), time.Now().Add(time.Minute)); r != ReasonExited {
			t.Fatalf("WaitEnd: %s", r)
		}
		time.Sleep(100 * msec)
		before := time.Now()
		m.Shutdown(t.Context())
		if d := time.Since(before); d != 0 {
			t.Errorf("Shutdown took %v, want no time at all", d)
		}
		time.Sleep(time.Minute)
		if n := len(e.started()); n != 1 {
			t.Errorf("%d runs started, want 1", n)
		}
	})
}
