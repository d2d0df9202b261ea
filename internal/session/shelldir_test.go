//go:build unix

package session

import (
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Issue 30 item 6: if the shell-integration directory is removed while the
// server runs (a tmp cleaner), another user can recreate it from the path
// visible in ps and plant bashrc. The next integrated bash must not run
// it: the directory and its files are checked before every shell.
func TestPlantedShellIntegrationDoesNotRun(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not installed")
	}
	m := newTestManager(t, nil)
	marker := filepath.Join(t.TempDir(), "planted-ran")
	planted := fmt.Sprintf("touch %s\n", marker)

	startBash := func(t *testing.T) {
		t.Helper()
		p, err := m.Start(t.Context(), spec("bash", true))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { p.Close() })
		o := p.Await(t.Context(), time.Now().Add(20*time.Second), Until{InputWait: true})
		if _, err := os.Stat(marker); err == nil {
			t.Fatal("the planted bashrc ran")
		}
		if o.Reason != ReasonInputWait || o.Input.Signal != SignalMark {
			t.Fatalf("bash did not reach its integrated prompt: %s %+v", o.Reason, o.Input)
		}
	}
	startBash(t)
	m.mu.Lock()
	dir := m.shellDir
	m.mu.Unlock()
	if dir == "" {
		t.Fatal("no shell-integration directory")
	}

	for _, c := range []struct {
		name  string
		plant func(t *testing.T)
	}{
		{"directory recreated open to all", func(t *testing.T) {
			if err := os.RemoveAll(dir); err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(dir, 0o777); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(dir, 0o777); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "bashrc"), []byte(planted), 0o666); err != nil {
				t.Fatal(err)
			}
		}},
		{"file replaced", func(t *testing.T) {
			if err := os.WriteFile(filepath.Join(dir, "bashrc"), []byte(planted), 0o600); err != nil {
				t.Fatal(err)
			}
		}},
		{"file made a link", func(t *testing.T) {
			evil := filepath.Join(t.TempDir(), "evilrc")
			if err := os.WriteFile(evil, []byte(planted), 0o600); err != nil {
				t.Fatal(err)
			}
			_ = os.Remove(filepath.Join(dir, "bashrc"))
			if err := os.Symlink(evil, filepath.Join(dir, "bashrc")); err != nil {
				t.Fatal(err)
			}
		}},
		{"directory removed", func(t *testing.T) {
			if err := os.RemoveAll(dir); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			m.mu.Lock()
			dir = m.shellDir
			m.mu.Unlock()
			c.plant(t)
			startBash(t)
			m.mu.Lock()
			now := m.shellDir
			m.mu.Unlock()
			b, err := os.ReadFile(filepath.Join(now, "bashrc"))
			if err != nil || strings.Contains(string(b), marker) {
				t.Errorf("integration file %s: %v %q", now, err, b)
			}
			fi, err := os.Lstat(now)
			if err != nil || fi.Mode().Perm() != 0o700 {
				t.Errorf("integration directory %s: %v %v", now, fi.Mode(), err)
			}
		})
	}
}

// Temporary directories of a server that is provably dead (its pid gone,
// or now another process's) are swept; those of a live server, other
// names and other kinds of entries are left alone. Issue 30 item 6: they
// survived a SIGKILL and were never swept.
func TestSweepRemovesDeadServersTempDirs(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	live, err := NewTempDir("shell")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(filepath.Base(live), fmt.Sprintf("yieldshell-shell-%d-", os.Getpid())) {
		t.Fatalf("NewTempDir = %s: no pid in the name", live)
	}
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	gone := []string{
		fmt.Sprintf("yieldshell-logs-%d-12345-1", dead.Process.Pid), // exited
		"yieldshell-shell-1-1-77",                                   // pid 1 did not start at tick 1
		"yieldshell-sandbox-1-1-78",                                 // confined processes' TMPDIRs
	}
	kept := []string{filepath.Base(live), "yieldshell-1234", "yieldshell-shell-x-1-2", "yieldshell-0"}
	for _, d := range append(gone, kept[1:]...) {
		if err := os.MkdirAll(filepath.Join(tmp, d, "zsh"), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if n := SweepTempDirs(slog.New(slog.DiscardHandler)); n != len(gone) {
		t.Errorf("swept %d directories, want %d", n, len(gone))
	}
	for _, d := range gone {
		if _, err := os.Stat(filepath.Join(tmp, d)); err == nil {
			t.Errorf("%s survived the sweep", d)
		}
	}
	for _, d := range kept {
		if _, err := os.Stat(filepath.Join(tmp, d)); err != nil {
			t.Errorf("%s was swept: %v", d, err)
		}
	}
}
