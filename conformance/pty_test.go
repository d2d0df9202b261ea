//go:build linux

package conformance

import (
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// ptyTerm is a person's terminal for a command under test: what the command
// shows accumulates, keystrokes are typed into it.
type ptyTerm struct {
	t    *testing.T
	f    *os.File
	mu   sync.Mutex
	out  strings.Builder
	more chan struct{} // signalled on each read
	done chan struct{}
}

// startInPty starts cmd on a new 100x30 terminal; the terminal closes at
// test end.
func startInPty(t *testing.T, cmd *exec.Cmd) *ptyTerm {
	t.Helper()
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: 100, Rows: 30})
	if err != nil {
		t.Fatalf("starting %v on a terminal: %v", cmd.Args, err)
	}
	p := &ptyTerm{t: t, f: f, more: make(chan struct{}, 1), done: make(chan struct{})}
	go func() {
		defer close(p.done)
		buf := make([]byte, 4096)
		for {
			n, err := f.Read(buf)
			p.mu.Lock()
			p.out.Write(buf[:n])
			p.mu.Unlock()
			select {
			case p.more <- struct{}{}:
			default:
			}
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		if cmd.Process != nil {
			_ = cmd.Process.Kill()
		}
		f.Close()
		<-p.done
	})
	return p
}

func (p *ptyTerm) seen() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.String()
}

// expect waits until the terminal has shown want.
func (p *ptyTerm) expect(want string) {
	p.t.Helper()
	deadline := time.NewTimer(10 * time.Second)
	defer deadline.Stop()
	for !strings.Contains(p.seen(), want) {
		select {
		case <-p.more:
		case <-p.done:
			if !strings.Contains(p.seen(), want) {
				p.t.Fatalf("the terminal closed without showing %q:\n%q", want, p.seen())
			}
		case <-deadline.C:
			p.t.Fatalf("the terminal did not show %q within 10 s:\n%q", want, p.seen())
		}
	}
}

func (p *ptyTerm) type_(s string) {
	p.t.Helper()
	if _, err := p.f.WriteString(s); err != nil {
		p.t.Fatalf("typing: %v", err)
	}
}

// cooked reports whether the terminal is back in line mode with echo.
func (p *ptyTerm) cooked() bool {
	tio, err := unix.IoctlGetTermios(int(p.f.Fd()), unix.TCGETS)
	return err == nil && tio.Lflag&unix.ICANON != 0 && tio.Lflag&unix.ECHO != 0
}

// TestAttach drives `yieldshell attach` through a real terminal: it shows
// the screen, what is typed reaches the process and its echo shows,
// Ctrl-] detaches, the process keeps running and the terminal is restored.
//
// Spec: README: "attach puts the terminal in raw mode, draws the process's rendered screen" and "Ctrl-] detaches".
func TestAttach(t *testing.T) {
	env := persistRuntime(t)
	s := start(t, "2025-06-18", env...)
	id := s.exec("echo attach-banner; exec cat", map[string]any{"name": "echoer", "yield_ms": 0}).
		mustStatus(t, "backgrounded").str("process_id")
	s.readUntil(id, "attach-banner")

	cmd := newCmd(t, "attach", "echoer")
	cmd.Env = append(os.Environ(), env...)
	tty := startInPty(t, cmd)
	tty.expect("attach-banner") // the screen as it was
	tty.type_("typed-by-a-person\r")
	tty.expect("typed-by-a-person\r\ntyped-by-a-person") // the terminal's echo, then cat's answer
	tty.type_("\x1d")
	tty.expect("detached")
	if err := cmd.Wait(); err != nil {
		t.Errorf("attach after detaching: %v\n%s", err, tty.seen())
	}
	if !tty.cooked() {
		t.Error("the terminal was left in raw mode")
	}
	r := s.call("read", map[string]any{"process_id": "echoer", "since_seq": 0})
	if r.str("status") != "running" || !strings.Contains(r.str("stdout"), "typed-by-a-person") {
		t.Errorf("after detaching: %s", r.text)
	}

	// --watch shows output but sends nothing.
	cmd = newCmd(t, "attach", "--watch", "echoer")
	cmd.Env = append(os.Environ(), env...)
	tty = startInPty(t, cmd)
	tty.expect("typed-by-a-person")
	tty.type_("not-sent")
	s.call("write", map[string]any{"process_id": "echoer", "input": "from-the-agent", "newline": true})
	tty.expect("from-the-agent")
	tty.type_("\x03")
	tty.expect("detached")
	if err := cmd.Wait(); err != nil {
		t.Errorf("attach --watch: %v", err)
	}
	if out := s.call("read", map[string]any{"process_id": "echoer", "since_seq": 0}).str("stdout"); strings.Contains(out, "not-sent") {
		t.Errorf("--watch sent keystrokes: %q", out)
	}

	// A signal ends attach too, and the terminal is restored.
	cmd = newCmd(t, "attach", "echoer")
	cmd.Env = append(os.Environ(), env...)
	tty = startInPty(t, cmd)
	tty.expect("from-the-agent")
	eventually(t, 10*time.Second, "attach to make the terminal raw", func() bool { return !tty.cooked() })
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	tty.expect("interrupted")
	if err := cmd.Wait(); err != nil {
		t.Errorf("attach after SIGTERM: %v", err)
	}
	if !tty.cooked() {
		t.Error("the terminal was left in raw mode after SIGTERM")
	}
	if r := s.call("read", map[string]any{"process_id": "echoer"}); r.str("status") != "running" {
		t.Errorf("after attach's SIGTERM: %s", r.text)
	}
}
