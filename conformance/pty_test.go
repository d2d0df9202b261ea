package conformance

import (
	"os"
	"os/exec"
	"strings"
	"sync"
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
