//go:build unix

package session

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/yieldshell/yieldshell/internal/poll"
)

func named(cmd, name string) Spec {
	s := spec(cmd, true)
	s.Name = name
	return s
}

func TestNamesAreHandlesAndRefuseDuplicates(t *testing.T) {
	m := newTestManager(t, nil)
	p, err := m.Start(t.Context(), named("sleep 30", "  My Dev   Server "))
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != "my-dev-server" {
		t.Errorf("name = %q", p.Name)
	}
	for _, ref := range []string{p.ID, "my-dev-server", "My Dev Server", "MY-DEV-SERVER"} {
		if got, err := m.Get(ref); err != nil || got != p {
			t.Errorf("Get(%q) = %v, %v", ref, got, err)
		}
	}
	_, err = m.Start(t.Context(), named("sleep 30", "my dev server"))
	var inUse *NameInUseError
	if !errors.As(err, &inUse) || inUse.ProcessID != p.ID {
		t.Fatalf("second start under a running name: %v", err)
	}
	if _, err := p.Stop(t.Context(), syscall.SIGKILL, 0, EndedByStop); err != nil {
		t.Fatal(err)
	}
	q, err := m.Start(t.Context(), named("sleep 30", "my-dev-server"))
	if err != nil {
		t.Fatalf("start after the first ended: %v", err)
	}
	if got, _ := m.Get("my-dev-server"); got != q {
		t.Errorf("the name resolves to %v, want the newest run %v", got, q.ID)
	}
	if _, err := m.Start(t.Context(), Spec{Command: "true", SideEffects: []string{"NONE"}, Restart: RestartPolicy{MaxRetries: 1}}); !errors.Is(err, ErrNameNeeded) {
		t.Errorf("restart policy without a name: %v", err)
	}
}

func TestWaitPatternSeesEarlyOutputAndSplitLines(t *testing.T) {
	m := newTestManager(t, nil)
	for _, tty := range []bool{true, false} {
		// The pattern is printed at once, in two writes, before anyone waits.
		s := spec(`printf 'boot\nLocal: http://local'; sleep 0.05; printf 'host:5173/ ready\n'; sleep 30`, tty)
		p, err := m.Start(t.Context(), s)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _, _ = p.Stop(t.Context(), syscall.SIGKILL, 0, EndedByStop) })
		time.Sleep(0) // no synchronisation: the wait starts whenever it starts
		r := p.Await(t.Context(), time.Now().Add(10*time.Second), Until{Pattern: regexp.MustCompile(`http://\S+ ready`)})
		if r.Reason != ReasonPattern || r.Matched != "http://localhost:5173/ ready" || r.Line != "Local: http://localhost:5173/ ready" {
			t.Errorf("tty=%v: %+v", tty, r)
		}
		if got := p.URLs(); !slices.Equal(got, []string{"http://localhost:5173/"}) {
			t.Errorf("tty=%v: URLs = %q", tty, got)
		}
		// From a later position, the same text is not seen again.
		r = p.Await(t.Context(), time.Now().Add(100*time.Millisecond), Until{Pattern: regexp.MustCompile(`ready`), From: p.LogEnd()})
		if r.Reason != ReasonDeadline {
			t.Errorf("tty=%v: from the end: %+v", tty, r)
		}
	}
	// A process that exits first says so.
	p, err := m.Start(t.Context(), spec("echo nope; exit 4", true))
	if err != nil {
		t.Fatal(err)
	}
	if r := p.Await(t.Context(), time.Now().Add(10*time.Second), Until{Pattern: regexp.MustCompile(`ready`)}); r.Reason != ReasonExited {
		t.Errorf("exit before the pattern: %+v", r)
	}
}

func TestTrimURL(t *testing.T) {
	for in, want := range map[string]string{
		"http://x/":            "http://x/",
		"http://x/.":           "http://x/",
		"http://x/),":          "http://x/",
		"http://x/wiki/A_(b)":  "http://x/wiki/A_(b)",
		"https://h:8080/a?b=1": "https://h:8080/a?b=1",
	} {
		if got := trimURL(in); got != want {
			t.Errorf("trimURL(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCrashRestartsWithBackoffAndHistory(t *testing.T) {
	m := newTestManager(t, nil)
	s := named("echo run; exit 3", "crashy")
	s.Restart = RestartPolicy{MaxRetries: 2, Delay: 10 * time.Millisecond}
	p, err := m.Start(t.Context(), s)
	if err != nil {
		t.Fatal(err)
	}
	var h History
	poll.Until(t, 10*time.Second, "two restarts, the last run ended", func() bool {
		h = m.History(p)
		if h.Restarts != 2 || h.RestartPending || h.LastExit == nil {
			return false
		}
		newest, _ := m.Get("crashy")
		return newest.Ended() && h.LastExit.ProcessID == newest.ID
	})
	if *h.LastExit.Code != 3 {
		t.Errorf("last exit %+v", h.LastExit)
	}
	if n := len(m.List()); n != 3 {
		t.Errorf("%d runs, want 3 (the first and two restarts)", n)
	}
	if d := (RestartPolicy{Delay: time.Second, MaxDelay: 5 * time.Second}).backoff(5); d != 5*time.Second {
		t.Errorf("backoff cap: %v", d)
	}
	if d := (RestartPolicy{Delay: time.Second}).backoff(2); d != 4*time.Second {
		t.Errorf("backoff: %v", d)
	}
}

// A start verification follows the process through crash restarts.
func TestWaitPatternFollowsRestarts(t *testing.T) {
	m := newTestManager(t, nil)
	counter := filepath.Join(t.TempDir(), "n")
	s := named(`n=$(cat `+counter+` 2>/dev/null || echo 0); n=$((n+1)); echo $n > `+counter+`; echo "run $n"; [ $n -ge 3 ] && echo up && sleep 30; exit 5`, "flaky")
	s.Restart = RestartPolicy{MaxRetries: 5, Delay: time.Millisecond}
	p, err := m.Start(t.Context(), s)
	if err != nil {
		t.Fatal(err)
	}
	q, r, n := m.WaitPatternFollowing(t.Context(), p, time.Now().Add(20*time.Second), regexp.MustCompile(`^up$`))
	if r.Reason != ReasonPattern || n != 2 || q == p || q.Name != "flaky" {
		t.Errorf("followed %d restarts to %s: %+v", n, q.ID, r)
	}
	if m.WillRestart(p) || m.NextRun(t.Context(), q, time.Now()) != nil {
		t.Error("a running process is not being restarted")
	}
	_, _ = q.Stop(t.Context(), syscall.SIGKILL, 0, EndedByStop)
	// Without retries left, the wait ends with the exit.
	s = named("echo nope; exit 1", "once")
	p, err = m.Start(t.Context(), s)
	if err != nil {
		t.Fatal(err)
	}
	if q, r, n := m.WaitPatternFollowing(t.Context(), p, time.Now().Add(20*time.Second), regexp.MustCompile(`up`)); r.Reason != ReasonExited || n != 0 || q != p {
		t.Errorf("no policy: %d restarts, %+v", n, r)
	}
}

func TestStopNeverTriggersCrashRestart(t *testing.T) {
	m := newTestManager(t, nil)
	s := named("sleep 30", "server")
	s.Restart = RestartPolicy{MaxRetries: 3, Delay: time.Millisecond}
	p, err := m.Start(t.Context(), s)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Stop(t.Context(), syscall.SIGTERM, time.Second, EndedByStop); err != nil {
		t.Fatal(err)
	}
	if h := m.History(p); h.RestartPending || h.Restarts != 0 {
		t.Errorf("history after stop: %+v", h)
	}
	// Restart: a new run under the same name, the old one ended by restart.
	q, err := m.Restart(t.Context(), p, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if q.ID == p.ID || q.Name != "server" || m.History(q).Restarts != 1 {
		t.Errorf("restart gave %s %q %+v", q.ID, q.Name, m.History(q))
	}
	r, err := m.Restart(t.Context(), q, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if in := q.Info(); in.EndedBy != EndedByRestart || in.Status != Stopped {
		t.Errorf("restarted run: %+v", in)
	}
	_, _ = r.Stop(t.Context(), syscall.SIGKILL, 0, EndedByStop)
}

// Shutdown while a crash restart is pending leaves nothing behind.
func TestShutdownJoinsPendingRestart(t *testing.T) {
	m := newTestManager(t, nil)
	s := named("exit 1", "x")
	s.Restart = RestartPolicy{MaxRetries: 5, Delay: 20 * time.Millisecond}
	p, err := m.Start(t.Context(), s)
	if err != nil {
		t.Fatal(err)
	}
	p.WaitEnd(t.Context(), time.Now().Add(10*time.Second))
	m.Shutdown(t.Context())
	for _, q := range m.List() {
		if !q.Ended() {
			t.Errorf("%s still running after shutdown", q.ID)
		}
	}
}

func TestPurgeForgetsNames(t *testing.T) {
	m := newTestManager(t, map[string]string{"YIELDSHELL_PURGE_AFTER_MS": "50"})
	p, err := m.Start(t.Context(), named("true", "short"))
	if err != nil {
		t.Fatal(err)
	}
	p.WaitEnd(t.Context(), time.Now().Add(10*time.Second))
	poll.Until(t, 10*time.Second, "the ended process is purged", func() bool {
		_, err := m.Get("short")
		return errors.Is(err, ErrUnknownProcess)
	})
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.reg.names) != 0 || len(m.reg.runs) != 0 {
		t.Errorf("left behind: names %v runs %v", m.reg.names, m.reg.runs)
	}
}

func TestDiskLog(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "logs")
	m := newTestManager(t, map[string]string{"YIELDSHELL_LOG_DIR": dir, "YIELDSHELL_LOG_MAX_BYTES": "4096",
		"MY_API_TOKEN": ""})
	s := named(`printf '\033[31mred\033[0m\rdone\n'; i=0; while [ $i -lt 200 ]; do echo "line $i of some output"; i=$((i+1)); done`, "web")
	_, _, _ = run(t, m, s)
	p, _, _ := run(t, m, s) // the second run appends to the same file
	path := m.LogPath(p)
	if path != filepath.Join(dir, "web.log") {
		t.Errorf("path %q", path)
	}
	m.Shutdown(t.Context()) // joins the writers
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	old, err := os.ReadFile(path + ".1")
	if err != nil {
		t.Fatalf("no rotation: %v", err)
	}
	all := string(old) + string(b)
	if len(b) > 4096 || !strings.Contains(all, "line 199 of some output\n") ||
		!strings.HasSuffix(all, "--- yieldshell: "+p.ID+" completed, exit code 0, ended by exit ---\n") {
		t.Errorf("log (%d bytes):\n%s", len(b), all)
	}
	if strings.Contains(string(old)+string(b), "\033") {
		t.Error("raw escape codes reached the file")
	}
	for _, f := range []string{dir, path} {
		fi, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		if perm := fi.Mode().Perm(); perm&0o077 != 0 {
			t.Errorf("%s has mode %v", f, perm)
		}
	}
}
