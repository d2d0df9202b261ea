//go:build unix

package session

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/yieldshell/yieldshell/screen"
)

// Live confirmations with real programs under a PTY. Each skips when its
// program is missing. Setup never runs a child outside the Manager: the
// session tests' Reaper reaps every child of the test process.

var escapeCode = regexp.MustCompile("[\x00-\x09\x0b-\x1f\x7f]")

func needProgram(t *testing.T, names ...string) {
	t.Helper()
	for _, n := range names {
		if _, err := exec.LookPath(n); err != nil {
			t.Skipf("%s not installed", n)
		}
	}
}

// startLive starts s and makes sure the process is gone at test end, even
// when the test fails half-way.
func startLive(t *testing.T, m *Manager, s Spec) *Process {
	t.Helper()
	p, err := m.Start(t.Context(), s)
	if err != nil {
		t.Fatalf("Start(%q): %v", s.Command, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if !p.Ended() {
			_, _ = p.Stop(ctx, syscall.SIGKILL, time.Second, EndedByStop)
		}
		p.Close()
	})
	return p
}

// runLive starts s, waits (bounded) for its end and returns the clean log.
func runLive(t *testing.T, m *Manager, s Spec) string {
	t.Helper()
	p := startLive(t, m, s)
	if r := p.WaitEnd(t.Context(), time.Now().Add(10*time.Second)); r != ReasonExited {
		t.Fatalf("%q did not end: %s", s.Command, r)
	}
	return liveLog(p)
}

func liveLog(p *Process) string {
	zero := int64(0)
	out := p.Snapshot(Query{Since: &zero, MaxBytes: 1 << 20, Streams: Both}).Output
	return string(out.Stdout)
}

// awaitScreen polls the rendered screen until ok holds or the deadline
// passes; it returns the last snapshot.
func awaitScreen(t *testing.T, p *Process, ok func(screen.Snapshot) bool) screen.Snapshot {
	t.Helper()
	var last screen.Snapshot
	got, err := p.await(t.Context(), time.Now().Add(5*time.Second), func() bool {
		// await holds p.mu; read the view directly, as Snapshot would.
		if p.out.view == nil {
			return false
		}
		last = p.out.view.snapshot()
		return ok(last)
	})
	if !got || err != nil {
		t.Fatalf("screen never reached the expected state (%v); last screen:\n%s", err, strings.Join(last.Lines, "\n"))
	}
	return last
}

func screenHas(s screen.Snapshot, text string) bool {
	for _, l := range s.Lines {
		if strings.Contains(l, text) {
			return true
		}
	}
	return false
}

func TestRealProgressBar(t *testing.T) {
	needProgram(t, "python3")
	m := newTestManager(t, nil)
	log := runLive(t, m, spec(`python3 -c '
import sys
for i in range(101):
    n = i * 20 // 100
    sys.stdout.write("\r[" + "#" * n + " " * (20 - n) + "] %3d%%" % i)
    sys.stdout.flush()
sys.stdout.write("\ndone\n")
'`, true))
	if want := "[####################] 100%\ndone\n"; log != want {
		t.Errorf("log = %q, want %q", log, want)
	}
}

func TestRealLsColor(t *testing.T) {
	needProgram(t, "ls")
	dir := t.TempDir()
	for _, f := range []string{"a.txt", "run.sh"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("x\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	m := newTestManager(t, nil)
	s := spec("ls --color=always -l && ls --color=always", true)
	s.Cwd = dir
	log := runLive(t, m, s)
	if escapeCode.MatchString(log) {
		t.Errorf("log has control characters: %q", log)
	}
	for _, want := range []string{"a.txt", "run.sh", "sub"} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %q: %q", want, log)
		}
	}
}

func TestRealGitLog(t *testing.T) {
	needProgram(t, "git")
	dir := t.TempDir()
	m := newTestManager(t, nil)
	env := map[string]string{
		"GIT_AUTHOR_NAME": "Alice", "GIT_AUTHOR_EMAIL": "alice@example.com",
		"GIT_COMMITTER_NAME": "Alice", "GIT_COMMITTER_EMAIL": "alice@example.com",
		"GIT_AUTHOR_DATE": "2024-01-02T03:04:05+0000", "GIT_COMMITTER_DATE": "2024-01-02T03:04:05+0000",
		"GIT_CONFIG_NOSYSTEM": "1", "HOME": dir,
	}
	if err := os.WriteFile(filepath.Join(dir, "a"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	setup := spec("git init -q -b main && git add a && git commit -q -m 'first commit'", true)
	setup.Cwd, setup.Env = dir, env
	if log := runLive(t, m, setup); strings.TrimSpace(log) != "" {
		t.Logf("setup: %q", log)
	}
	// No pager flag: GIT_PAGER=cat must keep it from blocking.
	s := spec("git log --color=always", true)
	s.Cwd, s.Env = dir, env
	log := runLive(t, m, s)
	if escapeCode.MatchString(log) {
		t.Errorf("log has control characters: %q", log)
	}
	if !strings.Contains(log, "first commit") || !strings.Contains(log, "Author: Alice <alice@example.com>") {
		t.Errorf("log = %q", log)
	}
}

func TestRealTop(t *testing.T) {
	needProgram(t, "top")
	m := newTestManager(t, nil)
	log := runLive(t, m, spec("top -b -n1", true))
	if !strings.Contains(log, "load average") {
		t.Errorf("log lacks load average: %q", log)
	}
	if escapeCode.MatchString(log) {
		t.Errorf("log has control characters: %q", log)
	}
}

// vim: the screen shows the file in the alternate screen; the log gets the
// notice and none of vim's drawing.
func TestRealVim(t *testing.T) {
	needProgram(t, "vim")
	dir := t.TempDir()
	file := filepath.Join(dir, "sample.txt")
	if err := os.WriteFile(file, []byte("line one of the file\nsecond line\nthird line\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := newTestManager(t, map[string]string{})
	s := spec("vim -u NONE -N sample.txt", true)
	s.Cwd = dir
	p := startLive(t, m, s)
	snap := awaitScreen(t, p, func(s screen.Snapshot) bool {
		return s.AltScreen && screenHas(s, "third line") && screenHas(s, `"sample.txt"`)
	})
	if snap.Lines[0] != "line one of the file" || !strings.HasPrefix(snap.Lines[3], "~") {
		t.Errorf("screen:\n%s", strings.Join(snap.Lines, "\n"))
	}
	if err := p.Write(t.Context(), []byte(":q!\r"), false); err != nil {
		t.Fatal(err)
	}
	if r := p.WaitEnd(t.Context(), time.Now().Add(5*time.Second)); r != ReasonExited {
		t.Fatalf("vim did not end after :q!: %s", r)
	}
	log := liveLog(p)
	if log != screen.AltScreenNotice {
		t.Errorf("log = %q, want only %q", log, screen.AltScreenNotice)
	}
}

// less, run explicitly (PAGER is cat for commands): the screen shows the
// file, "q" ends it.
func TestRealLess(t *testing.T) {
	needProgram(t, "less")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("alpha line\nbeta line\ngamma line\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := newTestManager(t, nil)
	s := spec("less notes.txt", true)
	s.Cwd = dir
	s.Env = map[string]string{"LESS": "", "LESSOPEN": "", "LESSHISTFILE": "-"}
	p := startLive(t, m, s)
	awaitScreen(t, p, func(s screen.Snapshot) bool {
		return screenHas(s, "alpha line") && screenHas(s, "gamma line")
	})
	if err := p.Write(t.Context(), []byte("q"), false); err != nil {
		t.Fatal(err)
	}
	if r := p.WaitEnd(t.Context(), time.Now().Add(5*time.Second)); r != ReasonExited {
		t.Fatalf("less did not end after q: %s", r)
	}
	if log := liveLog(p); strings.Contains(log, "\x1b") {
		t.Errorf("log has escape codes: %q", log)
	}
}
