package prompt

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	cpty "github.com/creack/pty"
	"github.com/yieldshell/yieldshell/internal/gpgtest"
	"github.com/yieldshell/yieldshell/internal/poll"
	"github.com/yieldshell/yieldshell/internal/proc"
)

// ttyRun is a command started under a terminal of its own, as the server
// starts one: its output is collected.
type ttyRun struct {
	cmd    *exec.Cmd
	master *os.File
	in     Input
	mu     sync.Mutex
	out    bytes.Buffer
}

// startTTY starts name args under a new PTY, in a session and group of its
// own, with env added to the test's environment (tag: the tag it carries).
// Everything it leaves (the command, its group, the processes carrying
// the tag) is ended when the test ends.
func startTTY(t testing.TB, tag string, env []string, name string, args ...string) *ttyRun {
	t.Helper()
	master, slave, err := cpty.Open()
	if err != nil {
		t.Fatal(err)
	}
	_ = cpty.Setsize(master, &cpty.Winsize{Rows: 24, Cols: 80})
	cmd := exec.Command(name, args...)
	cmd.Env = append(append(os.Environ(), env...), "TERM=xterm")
	if tag != "" {
		cmd.Env = append(cmd.Env, tag)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := &ttyRun{cmd: cmd, master: master, in: Input{Session: cmd.Process.Pid, Pgrp: cmd.Process.Pid, Path: slave.Name(), Tag: tag}}
	_ = slave.Close()
	done := make(chan struct{})
	go func() { // owned by the test: ends when the master is closed
		defer close(done)
		b := make([]byte, 4096)
		for {
			n, err := master.Read(b)
			r.mu.Lock()
			r.out.Write(b[:n])
			r.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
		if tag != "" {
			killTagged(tag)
		}
		_ = master.Close()
		<-done
	})
	return r
}

// killTagged ends and reaps the processes that carry tag: orphans of the
// test, its children as it is their reaper.
func killTagged(tag string) {
	pids, _ := proc.Pids()
	var env proc.EnvReader
	for _, pid := range pids {
		if holdsVar(env.Read(pid), tag) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			var ws syscall.WaitStatus
			_, _ = syscall.Wait4(pid, &ws, 0, nil)
		}
	}
}

func (r *ttyRun) output() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.out.String()
}

// await waits for the output to hold s.
func (r *ttyRun) await(t testing.TB, s string, d time.Duration) {
	t.Helper()
	if !poll.Within(d, func() bool { return strings.Contains(r.output(), s) }) {
		t.Fatalf("no %q in the output within %v: %q", s, d, r.output())
	}
}

// probeUntil asks until the verdict is want, or fails.
func probeUntil(t *testing.T, pr *Prober, in Input, want Activity, d time.Duration) Probe {
	t.Helper()
	var got Probe
	if !poll.Within(d, func() bool { got = pr.Inspect(in); return got.Activity == want }) {
		t.Fatalf("%s, want %s", got.Activity, want)
	}
	return got
}

// TestInspectOutsideReaders: a process of the command's tree reading the
// terminal outside its foreground group counts, whether it descends from
// the command (setsid) or only carries its tag (a daemon's child, handed
// to the reaper); one that merely holds the terminal open does not.
func TestInspectOutsideReaders(t *testing.T) {
	tests := []struct {
		name, script string
		want         Activity
	}{
		// The reproduction: the shell waits in wait4, the reader
		// is its child in a session of its own.
		{"setsid child", `T=$(tty); printf 'Passphrase: '; echo ready; setsid -w sh -c "read -r x < $T"`, Reading},
		// A double fork: the reader's parent is gone, only the tag links
		// it to the command, whose foreground sleeps.
		{"orphan by tag", `T=$(tty); (setsid sh -c "read -r x < $T" &); echo ready; exec sleep 3600`, Reading},
		// An outside child that holds the terminal open and sleeps.
		{"holds it open", `T=$(tty); (setsid sh -c "exec sleep 3600 < $T" &); echo ready; exec sleep 3600`, Busy},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tag := "PROMPT_TEST_TAG=" + strings.ReplaceAll(t.Name(), "/", "-")
			r := startTTY(t, tag, nil, "/bin/sh", "-c", tt.script)
			r.await(t, "ready", 5*time.Second)
			pr := NewProber()
			if tt.want == Busy {
				// Wait for the outside sleeper to be there, asleep.
				if !poll.Within(5*time.Second, func() bool { return len(pr.outside(r.in, r.in.Pgrp)) > 0 }) {
					t.Fatal("no process outside the foreground")
				}
				probeUntil(t, pr, r.in, Busy, 5*time.Second)
				return
			}
			// A fresh Prober for each look: a copy of the table taken
			// while the reader was still in the foreground group (before
			// its setsid) would place it there for tableAge.
			var got Probe
			if !poll.Within(5*time.Second, func() bool {
				got = NewProber().Inspect(r.in)
				return got.Activity == tt.want && got.Outside
			}) {
				t.Fatalf("%s, reader %+v outside %v: want %s outside the foreground", got.Activity, got.Reader, got.Outside, tt.want)
			}
			if got.Reader.Pid == r.in.Session {
				t.Errorf("reader %+v is the command itself", got.Reader)
			}
			// Without the tree, the foreground alone says nothing.
			if old := NewProber().inspect(r.in, probeOpts{noTree: true}); old.Activity != Busy {
				t.Errorf("foreground only: %s, want busy", old.Activity)
			}
		})
	}
}

// TestInspectPinentry: gpg asks for a passphrase through gpg-agent, which
// a daemon started in a session of its own; its pinentry-curses opens the
// terminal by name (GPG_TTY) and polls it. The probe finds it, and the
// passphrase typed works: the file decrypts with it.
func TestInspectPinentry(t *testing.T) {
	home := t.TempDir()
	gh := gpgtest.Home(t, filepath.Join(home, "gnupg"))
	plain := filepath.Join(home, "plain.txt")
	if err := os.WriteFile(plain, []byte("attack at dawn\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"GNUPGHOME=" + gh}
	tag := "PROMPT_TEST_TAG=pinentry"
	r := startTTY(t, tag, env, "/bin/sh", "-c",
		`export GPG_TTY=$(tty); exec gpg --no-symkey-cache --pinentry-mode ask --symmetric -o "$0.gpg" "$0"`, plain)
	pr := NewProber()
	for i, what := range []string{"passphrase", "its repetition"} {
		got := probeUntil(t, pr, r.in, Reading, 20*time.Second)
		if name, _ := proc.ReadComm(got.Reader.Pid); name != "pinentry-curses" || !got.Outside {
			t.Fatalf("%s: reader %q (outside %v), want pinentry-curses", what, name, got.Outside)
		}
		before, _ := Switches(got.Reader)
		if _, err := r.master.WriteString("s3cret pass\r"); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			// The dialog takes it and asks again (a new dialog, or the
			// same process waiting anew).
			if !poll.Within(10*time.Second, func() bool {
				n, ok := Switches(got.Reader)
				return !ok || n != before
			}) {
				t.Fatal("pinentry did not take the passphrase")
			}
		}
	}
	if err := r.cmd.Wait(); err != nil {
		t.Fatalf("gpg: %v\n%q", err, r.output())
	}
	dec := exec.Command("gpg", "--batch", "--pinentry-mode", "loopback", "--passphrase", "s3cret pass", "-d", plain+".gpg")
	dec.Env = append(os.Environ(), env...)
	out, err := dec.Output()
	if err != nil || string(out) != "attack at dawn\n" {
		t.Fatalf("decrypting: %q, %v", out, err)
	}
}

// nodeTimer prints a prompt-shaped line, waits 3 s on a timer with
// readline open (its event loop polls the terminal with the timer's
// timeout), then asks a question.
const nodeTimer = `
const rl = require('readline').createInterface({input: process.stdin, output: process.stdout});
process.stdout.write('ready\nSigning in as ada: ');
setTimeout(() => rl.question('Name: ', a => { console.log('hello ' + a); rl.close(); }), 3000);
`

// TestInspectNodeTimer: while the timer runs node is busy, though its
// event loop polls the terminal; once it asks, it polls with no timeout.
func TestInspectNodeTimer(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node not installed")
	}
	r := startTTY(t, "", nil, "node", "-e", nodeTimer)
	r.await(t, "Signing in as ada: ", 10*time.Second)
	pr := NewProber()
	// In its timed wait, input included (which the old probe took for a
	// wait on input) ...
	var got Probe
	if !poll.Within(5*time.Second, func() bool {
		got = pr.inspect(r.in, probeOpts{noTimeouts: true})
		return got.Activity == Polling || strings.Contains(r.output(), "Name: ")
	}) || strings.Contains(r.output(), "Name: ") {
		t.Fatalf("node was not seen in its timed wait: %s", got.Activity)
	}
	// ... which is a timer's.
	if got = pr.Inspect(r.in); (got.Activity != Busy || !got.Timed) && !strings.Contains(r.output(), "Name: ") {
		t.Fatalf("during the timer: %+v, want busy, timed", got)
	}
	// The first verdict that is not busy comes once it asked: the
	// question is out before node waits again.
	probeUntil(t, pr, r.in, Polling, 10*time.Second)
	r.await(t, "Name: ", time.Second)
}

// TestInspectNodeIdleREPL: node's REPL polls its terminal with no timeout
// once idle (libuv computes it from its timers, and has none), and for its
// first seconds with a timer of its own: Busy then, but Timed, which the
// session weighs with the bare prompt on the screen.
func TestInspectNodeIdleREPL(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node not installed")
	}
	r := startTTY(t, "", nil, "node", "-i")
	r.await(t, "> ", 10*time.Second)
	pr := NewProber()
	idle := func(p Probe) bool { return p.Activity == Polling || p.Activity == Busy && p.Timed }
	var got Probe
	if !poll.Within(10*time.Second, func() bool { got = pr.Inspect(r.in); return idle(got) }) {
		t.Fatalf("idle REPL: %+v, want polling or a timed wait", got)
	}
	for range 5 {
		if got = pr.Inspect(r.in); !idle(got) {
			t.Fatalf("idle REPL: %+v, want polling or a timed wait", got)
		}
	}
}

// TestInspectPythonSelectTimer: python's select on the terminal and a pipe
// with a 3 s timeout is a timer.
func TestInspectPythonSelectTimer(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not installed")
	}
	r := startTTY(t, "", nil, "python3", "-c", `import os, select, sys
r, w = os.pipe()
sys.stdout.write("ready\nContinue? "); sys.stdout.flush()
while True:
    select.select([0, r], [], [], 3.0)
`)
	r.await(t, "Continue? ", 10*time.Second)
	pr := NewProber()
	var got Probe
	if !poll.Within(5*time.Second, func() bool { got = pr.inspect(r.in, probeOpts{noTimeouts: true}); return got.Activity == Polling }) {
		t.Fatalf("python was not seen in its select: %s", got.Activity)
	}
	if got = pr.Inspect(r.in); got.Activity != Busy {
		t.Errorf("select with a timeout: %s, want busy", got.Activity)
	}
}

// A multiplexer's server (tmux) polls the terminal its client handed over
// with a timer beside its other descriptors, in a session of its own and
// an orphan, while the client in the foreground waits on its socket: the
// verdict is Busy (the timer's), and Watched says the terminal's input is
// taken, so that a reply to the server's queries is written (issue 43).
func TestInspectWatchedOutside(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	tag := "PROMPT_TEST_TAG=" + t.Name()
	script := `T=$(tty); (setsid env ` + childEnv + `=polltimed "$0" < $T > /dev/null &); exec sleep 3600`
	r := startTTY(t, tag, nil, "/bin/sh", "-c", script, self)
	pr := NewProber()
	var got Probe
	if !poll.Within(10*time.Second, func() bool {
		got = pr.Inspect(r.in)
		return got.Watched
	}) {
		t.Fatalf("%+v: the server's timed poll of the terminal is not seen", got)
	}
	if got.Activity != Busy {
		t.Errorf("%s, want busy: a timed wait is a timer's", got.Activity)
	}
	// Without the tag the orphan is not the command's.
	in := r.in
	in.Tag = ""
	if got := NewProber().Inspect(in); got.Watched {
		t.Errorf("without the tag: %+v, want not watched", got)
	}
}
