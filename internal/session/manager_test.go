//go:build unix

package session

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/yieldshell/yieldshell/internal/policy"
	"github.com/yieldshell/yieldshell/internal/poll"
)

// newTestManager returns a Manager with the given configuration overrides,
// shut down at test end.
func newTestManager(t testing.TB, env map[string]string) *Manager {
	t.Helper()
	cfg, err := policy.Load(func(k string) string { return env[k] }, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	o, err := LocalOptions(nil)
	if err != nil {
		t.Fatal(err)
	}
	m, err := NewManager(cfg, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		m.Shutdown(ctx)
	})
	return m
}

// run starts cmd and waits for its end.
func run(t *testing.T, m *Manager, s Spec) (*Process, Info, Output) {
	t.Helper()
	p, err := m.Start(t.Context(), s)
	if err != nil {
		t.Fatalf("Start(%q): %v", s.Command, err)
	}
	if r := p.WaitEnd(t.Context(), time.Now().Add(20*time.Second)); r != ReasonExited {
		t.Fatalf("%q did not end: %s", s.Command, r)
	}
	zero := int64(0)
	snap := p.Snapshot(Query{Since: &zero, MaxBytes: 1 << 20, Streams: Both})
	return p, snap.Info, snap.Output
}

// Fast exits must never lose output or the exit code.
func TestFastExitKeepsOutputAndCode(t *testing.T) {
	m := newTestManager(t, nil)
	runs := 500
	if testing.Short() {
		runs = 50
	}
	for _, tty := range []bool{true, false} {
		for i := range runs {
			_, info, out := run(t, m, spec(fmt.Sprintf("printf x%d; exit 3", i), tty))
			if got := string(out.Stdout); got != fmt.Sprintf("x%d", i) || info.ExitCode == nil || *info.ExitCode != 3 {
				t.Fatalf("tty=%v run %d: stdout %q, exit %v", tty, i, got, info.ExitCode)
			}
		}
	}
}

// The process limit holds under concurrent starts.
func TestLimitIsAtomic(t *testing.T) {
	m := newTestManager(t, map[string]string{"YIELDSHELL_MAX_PROCESSES": "5"})
	var started, refused atomic.Int32
	var wg sync.WaitGroup
	for range 40 {
		wg.Go(func() {
			_, err := m.Start(t.Context(), spec("sleep 30", false))
			if r, ok := errors.AsType[*policy.Refusal](err); ok && r.Rule == "max_processes" {
				refused.Add(1)
				return
			}
			if err != nil {
				t.Error(err)
				return
			}
			started.Add(1)
		})
	}
	wg.Wait()
	if started.Load() != 5 || refused.Load() != 35 {
		t.Errorf("started %d, refused %d; want 5, 35", started.Load(), refused.Load())
	}
	// Ending one frees its slot.
	p := m.List()[0]
	if _, err := p.Stop(t.Context(), syscall.SIGKILL, time.Second, EndedByStop); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Start(t.Context(), spec("true", false)); err != nil {
		t.Errorf("start after a stop: %v", err)
	}
}

func TestEndings(t *testing.T) {
	m := newTestManager(t, nil)
	_, info, _ := run(t, m, spec("exit 0", true))
	if info.Status != Completed || info.EndedBy != EndedByExit {
		t.Errorf("exit: %s %s", info.Status, info.EndedBy)
	}
	_, info, _ = run(t, m, spec("kill -KILL $$", true))
	if info.Status != Completed || info.EndedBy != EndedBySignal || info.Signal != "SIGKILL" || *info.ExitCode != -9 {
		t.Errorf("self-kill: %s %s %s %v", info.Status, info.EndedBy, info.Signal, *info.ExitCode)
	}
	s := spec("sleep 30", true)
	s.Timeout = 100 * time.Millisecond
	_, info, _ = run(t, m, s)
	if info.Status != TimedOut || info.EndedBy != EndedByTimeout {
		t.Errorf("timeout: %s %s", info.Status, info.EndedBy)
	}
	p, err := m.Start(t.Context(), spec("sleep 30", true))
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Stop(t.Context(), syscall.SIGTERM, time.Second, EndedByStop)
	if err != nil || !res.Gone || res.Killed {
		t.Fatalf("stop: %+v %v", res, err)
	}
	if info := p.Info(); info.Status != Stopped || info.EndedBy != EndedByStop || info.Signal != "SIGTERM" {
		t.Errorf("stop: %s %s %s", info.Status, info.EndedBy, info.Signal)
	}
	if _, err := p.Stop(t.Context(), syscall.SIGTERM, time.Second, EndedByStop); !errors.Is(err, ErrNotRunning) {
		t.Errorf("second stop: %v, want ErrNotRunning", err)
	}
	if err := p.Write(t.Context(), []byte("x"), false); !errors.Is(err, ErrNotRunning) {
		t.Errorf("write after end: %v, want ErrNotRunning", err)
	}
}

// A prompt without a newline is visible before the line ends.
func TestPromptVisible(t *testing.T) {
	m := newTestManager(t, nil)
	p, err := m.Start(t.Context(), spec(`printf 'Name: '; read n; echo "hi $n"`, true))
	if err != nil {
		t.Fatal(err)
	}
	ok, err := p.await(t.Context(), time.Now().Add(10*time.Second), func() bool {
		p.out.flush(p.log)
		r := p.log.ReadFrom(0, 100, Both)
		return string(r.Stdout) == "Name: "
	})
	if !ok || err != nil {
		t.Fatalf("prompt never became visible: %v", err)
	}
	if err := p.Write(t.Context(), []byte("bob\r"), false); err != nil {
		t.Fatal(err)
	}
	if r := p.WaitEnd(t.Context(), time.Now().Add(10*time.Second)); r != ReasonExited {
		t.Fatal(r)
	}
	zero := int64(0)
	out := p.Snapshot(Query{Since: &zero, MaxBytes: 1000, Streams: Both}).Output
	if got := string(out.Stdout); got != "Name: bob\nhi bob\n" {
		t.Errorf("log = %q", got)
	}
}

// A process outside the command's tree (untagged, out of the group) that
// holds the terminal does not hold up the end: the drain is bounded.
func TestDrainIsBounded(t *testing.T) {
	m := newTestManager(t, nil)
	start := time.Now()
	pidFile := filepath.Join(t.TempDir(), "pid")
	t.Cleanup(func() { killPidFile(pidFile) })
	// The parent waits until the grandchild has left its session: before
	// that, the hang-up at the parent's exit would end it too. Without the
	// tag it is no longer the command's.
	p, info, out := run(t, m, spec(fmt.Sprintf(`env -u `+tagKey+` setsid sh -c 'echo $$ > %[1]s; exec sleep 30' & while [ ! -s %[1]s ]; do :; done; echo parent`, pidFile), true))
	if el := time.Since(start); el > 2*time.Second {
		t.Errorf("end took %v", el)
	}
	if !strings.Contains(string(out.Stdout), "parent") || !info.OutputLeftOpen {
		t.Errorf("stdout %q, left open %v", out.Stdout, info.OutputLeftOpen)
	}
	p.Close()
}

// killPidFile kills the process whose pid a command wrote to path: for
// descendants that deliberately escape their process group.
func killPidFile(path string) {
	b, err := os.ReadFile(path)
	if err != nil {
		return
	}
	if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && pid > 0 {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}

// With the default limit, the 51st running process is refused and names
// the limit; nothing was started for it.
func TestDefaultLimit(t *testing.T) {
	m := newTestManager(t, nil)
	for i := range 50 {
		if _, err := m.Start(t.Context(), spec("sleep 30", false)); err != nil {
			t.Fatalf("start %d: %v", i+1, err)
		}
	}
	_, err := m.Start(t.Context(), spec("sleep 30", false))
	r, ok := errors.AsType[*policy.Refusal](err)
	if !ok || r.Rule != "max_processes" || !strings.Contains(r.Message, "YIELDSHELL_MAX_PROCESSES") {
		t.Fatalf("51st start: %v", err)
	}
	if n := len(m.List()); n != 50 {
		t.Errorf("%d processes registered, want 50", n)
	}
}

// stop, timeout and shutdown reach a descendant that left the process
// group and the session.
func TestEndingReachesEscapedDescendants(t *testing.T) {
	for _, end := range []string{"stop", "timeout", "shutdown"} {
		t.Run(end, func(t *testing.T) {
			m := newTestManager(t, nil)
			// The grandchild ignores SIGTERM: every case ends in SIGKILL
			// after the grace, which need not be the full one here.
			m.timing.timeoutGrace = 100 * time.Millisecond
			m.timing.shutdownGrace = 100 * time.Millisecond
			pidFile := filepath.Join(t.TempDir(), "pid")
			t.Cleanup(func() { killPidFile(pidFile) })
			s := spec(fmt.Sprintf(`setsid sh -c 'trap "" TERM; echo $$ > %[1]s; exec sleep 60' & while [ ! -s %[1]s ]; do :; done; echo started; wait`, pidFile), false)
			if end == "timeout" {
				s.Timeout = 300 * time.Millisecond
			}
			p, err := m.Start(t.Context(), s)
			if err != nil {
				t.Fatal(err)
			}
			if ok, _ := p.await(t.Context(), time.Now().Add(10*time.Second), func() bool { p.out.flush(p.log); return p.log.End() > 0 }); !ok {
				t.Fatal("the escaped grandchild never started")
			}
			b, _ := os.ReadFile(pidFile)
			pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
			switch end {
			case "stop":
				if _, err := p.Stop(t.Context(), syscall.SIGTERM, 200*time.Millisecond, EndedByStop); err != nil {
					t.Fatal(err)
				}
			case "timeout":
			case "shutdown":
				m.Shutdown(t.Context())
			}
			poll.Until(t, 10*time.Second, fmt.Sprintf("%s: the escaped grandchild %d ends", end, pid),
				func() bool { return !processAlive(pid) })
		})
	}
}

// processAlive reports whether pid exists and is not a zombie.
func processAlive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || len(s) < i+3 || s[i+2] != 'Z'
}

// Nobody reading the output never holds the child up: the log evicts old
// output and says so.
func TestUnreadOutputNeverBlocksTheChild(t *testing.T) {
	m := newTestManager(t, map[string]string{"YIELDSHELL_MAX_BUFFER_BYTES": "65536", "YIELDSHELL_MAX_OUTPUT_BYTES": "1000"})
	for _, tty := range []bool{true, false} {
		_, info, out := run(t, m, spec("yes 0123456789 | head -c 5000000", tty))
		if *info.ExitCode != 0 || !out.Evicted || info.StdoutBytes < 5000000 {
			t.Errorf("tty=%v: exit %v, evicted %v, %d bytes seen", tty, *info.ExitCode, out.Evicted, info.StdoutBytes)
		}
	}
}

// A write to a process that stopped reading gives up with the caller's
// deadline instead of hanging.
func TestWriteToANonReaderIsBounded(t *testing.T) {
	m := newTestManager(t, nil)
	for _, tty := range []bool{true, false} {
		// In canonical mode the terminal throws away input past a full
		// line buffer, so such a write can succeed; without it the input
		// backs up as it would in a pipe.
		p, err := m.Start(t.Context(), spec("stty -icanon -echo 2>/dev/null; echo ready; sleep 30", tty))
		if err != nil {
			t.Fatal(err)
		}
		if ok, _ := p.await(t.Context(), time.Now().Add(10*time.Second), func() bool { p.out.flush(p.log); return p.log.End() > 0 }); !ok {
			t.Fatal("no output")
		}
		ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
		start := time.Now()
		err = p.Write(ctx, make([]byte, 1<<20), false)
		cancel()
		if err == nil || time.Since(start) > 5*time.Second {
			t.Errorf("tty=%v: write of 1 MiB to a non-reader: %v after %v", tty, err, time.Since(start))
		}
	}
}

// The containment tag cannot be overridden by env, nor inherited from a
// parent server: each command carries exactly its own.
func TestTagIsTheProcesssOwn(t *testing.T) {
	t.Setenv(tagKey, "1:2:proc_parent")
	m := newTestManager(t, nil)
	s := spec(`env | grep -c "^`+tagKey+`="; echo "$`+tagKey+`"`, false)
	s.Env = map[string]string{tagKey: "forged"}
	p, _, out := run(t, m, s)
	if want := "1\n" + m.tag + p.ID + "\n"; string(out.Stdout) != want {
		t.Errorf("child sees %q, want %q", out.Stdout, want)
	}
}

// Finished processes hold no goroutines: after 1000 commands, kept and
// then cleaned up, the count is back where it started.
func TestNoGoroutineGrowth(t *testing.T) {
	m := newTestManager(t, nil)
	n := 1000
	if testing.Short() {
		n = 200
	}
	cycle := func(i int) {
		_, info, out := run(t, m, spec("printf x; exit 3", i%2 == 0))
		if string(out.Stdout) != "x" || *info.ExitCode != 3 {
			t.Fatalf("run %d: stdout %q, exit %d", i, out.Stdout, *info.ExitCode)
		}
	}
	for i := range 20 { // warm-up: what the Manager keeps for its life starts here
		cycle(i)
	}
	m.Cleanup(0, 0)
	// A few goroutines of the last command may still be returning; a leak
	// would be one or more per command.
	limit := runtime.NumGoroutine() + 5
	for i := range n {
		cycle(i)
	}
	if got := goroutinesFallTo(limit); got > limit {
		t.Errorf("%d goroutines after %d commands whose records are kept, want at most %d", got, n, limit)
	}
	if removed := m.Cleanup(0, 0); removed != n {
		t.Errorf("cleanup removed %d of %d records", removed, n)
	}
	if got := goroutinesFallTo(limit); got > limit {
		t.Errorf("%d goroutines after %d commands cleaned up, want at most %d", got, n, limit)
	}
}

// goroutinesFallTo waits up to 5 s for the goroutine count to fall to limit
// and returns the count.
func goroutinesFallTo(limit int) int {
	poll.Within(5*time.Second, func() bool { return runtime.NumGoroutine() <= limit })
	return runtime.NumGoroutine()
}

// Askable meets the refusals a start would meet, all of them: a start
// whose askable refusal (a blocked side effect) hides one a person may
// not waive (an environment variable a command regex cannot see) is not
// put to a person, who would allow a start that then fails anyway.
func TestAskableMeetsEveryCheck(t *testing.T) {
	m := newTestManager(t, map[string]string{
		"MCP_YIELDSHELL_BLOCKED_SIDE_EFFECTS": "MAKES_NETWORK_REQUESTS",
		"YIELDSHELL_DENY_COMMAND_REGEX":       "^rm ",
	})
	spec := Spec{Command: "true", SideEffects: []string{"MAKES_NETWORK_REQUESTS"}, Env: map[string]string{"LD_PRELOAD": "/tmp/x.so"}}
	_, startErr := m.checkPolicy(spec, nil)
	asking, err := m.Askable(spec)
	if err == nil || !strings.Contains(err.Error(), "LD_PRELOAD") {
		t.Fatalf("Askable = %+v, %v; want the environment's refusal, so nobody is asked", asking, err)
	}
	spec.Waived = asking.Rules()
	if _, err2 := m.checkPolicy(spec, nil); err2 == nil {
		t.Errorf("with %v waived the start is allowed; Askable said %v (first refusal %v)", spec.Waived, err, startErr)
	}
}
