package remote

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/yieldshell/yieldshell/internal/execproto"
	"github.com/yieldshell/yieldshell/internal/executor"
	"github.com/yieldshell/yieldshell/internal/policy"
	"github.com/yieldshell/yieldshell/internal/session"
	"github.com/yieldshell/yieldshell/prompt"
	"github.com/yieldshell/yieldshell/pty"
)

// noEngine is the local engine of a Manager that runs only remote
// commands: in one test process, the executor's reaper is the only one.
type noEngine struct{}

func (noEngine) Start(context.Context, pty.Options) (session.EngineProcess, error) {
	return nil, errors.New("no local engine in this test")
}
func (noEngine) Close() error                                     { return nil }
func (noEngine) EndTagged(context.Context, string, time.Duration) {}

// pipeDialer connects to an executor in this process: the first dial
// starts it, later ones reach the same one. drop ends the connection.
type pipeDialer struct {
	e   *executor.Executor
	run func(*execproto.Conn)

	mu    sync.Mutex
	dials int
	local net.Conn // this end of the current connection
}

func (d *pipeDialer) Dial(ctx context.Context, _ string) (io.ReadWriteCloser, error) {
	a, b := net.Pipe()
	d.mu.Lock()
	d.dials++
	first := d.dials == 1
	d.local = a
	d.mu.Unlock()
	c := execproto.NewConn(b, b, b)
	if first {
		d.run(c)
	} else {
		d.e.Serve(c)
	}
	return a, nil
}

func (d *pipeDialer) drop() {
	d.mu.Lock()
	defer d.mu.Unlock()
	_ = d.local.Close()
}

// newRemoteManager is a Manager whose Hosts reach an in-process executor.
func newRemoteManager(t testing.TB, dialer func(host string) Dialer) *session.Manager {
	t.Helper()
	cfg, err := policy.Load(func(string) string { return "" }, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	hosts := NewHosts(Config{Timing: Timing{Call: 5 * time.Second, Grace: time.Minute},
		Dialer: func(host string, _ *session.Manager) Dialer { return dialer(host) }})
	m, err := session.NewManager(cfg, session.Options{Engine: noEngine{}, Prober: prompt.NewProber(), Tag: ownTag(t), Hosts: hosts})
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

// ownTag is this process's tag prefix: a made-up one would look like
// a dead server's to the orphan sweep of any server on the machine.
func ownTag(t testing.TB) string {
	start, err := pty.StartTime(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%d:%d:", os.Getpid(), start)
}

// inProcess starts an executor in this process, ended at cleanup.
func inProcess(t testing.TB) *pipeDialer {
	t.Helper()
	reaper, err := pty.NewReaper()
	if err != nil {
		t.Fatal(err)
	}
	e := executor.New(reaper, time.Minute, nil)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	d := &pipeDialer{e: e}
	d.run = func(c *execproto.Conn) { wg.Go(func() { e.Run(ctx, c, nil) }) }
	t.Cleanup(func() { cancel(); wg.Wait() })
	return d
}

func start(t *testing.T, m *session.Manager, s session.Spec) *session.Process {
	t.Helper()
	if s.SideEffects == nil {
		s.SideEffects = []string{"NONE"}
	}
	p, err := m.Start(t.Context(), s)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func await(t *testing.T, p *session.Process, want session.Reason) session.Outcome {
	t.Helper()
	o := p.Await(t.Context(), time.Now().Add(20*time.Second), session.Until{InputWait: true})
	if o.Reason != want {
		out := output(p)
		t.Fatalf("await: %s (%+v), want %s; output (%d bytes) ends %q", o.Reason, o.Input, want, len(out), out[max(0, len(out)-300):])
	}
	return o
}

func output(p *session.Process) string {
	return string(p.Snapshot(session.Query{MaxBytes: 1 << 20, Streams: session.Stdout}).Stdout)
}

func TestInProcessEcho(t *testing.T) {
	d := inProcess(t)
	m := newRemoteManager(t, func(string) Dialer { return d })
	p := start(t, m, session.Spec{Command: "echo hello; echo $((6*7))", TTY: true, Host: "box", Name: "greet"})
	if !strings.HasSuffix(p.ID, "@box") || p.Name != "greet@box" || p.Host != "box" {
		t.Errorf("id %q name %q host %q: want both to say the host", p.ID, p.Name, p.Host)
	}
	await(t, p, session.ReasonExited)
	if got := output(p); got != "hello\n42\n" {
		t.Errorf("output %q", got)
	}
	if in := p.Info(); in.ExitCode == nil || *in.ExitCode != 0 {
		t.Errorf("exit %+v", in)
	}
}

// waits are the real-program cases that make sense remotely: the verdict
// and its evidence must be the local ones (the remote kernel's).
var waits = []struct {
	name, prog, command string
	kind                prompt.Kind
	signal              prompt.Signal
	answer              string // typed with a newline, and the program ends; "": stopped instead
	user                bool   // asks only an ordinary user
}{
	{"read-s", "bash", `read -s -p 'Password: ' pw; echo; echo "len ${#pw}"`, prompt.KindPassword, prompt.SignalTTY, "x", false},
	{"read-p", "bash", `read -p 'Name? ' n; echo "hi $n"`, prompt.KindLine, prompt.SignalTTY, "x", false},
	{"python-input", "python3", `python3 -c 'n = input("Your name: "); print("hi", n)'`, prompt.KindLine, prompt.SignalTTY, "x", false},
	{"python-repl", "python3", `python3 -q`, prompt.KindLine, prompt.SignalTTY, "exit()", false},
	{"curses", "python3", `python3 -c 'import curses; curses.wrapper(lambda s: (s.addstr(0, 0, "Press a key: "), s.getkey()))'`, prompt.KindLine, prompt.SignalTTY, "x", false},
	// passwd asks for the current password (another user) or a new one
	// (root), with echo off; it is stopped, not answered. As another
	// user its read cannot be seen (setuid root), the terminal's modes
	// can: tty_mode; as root, tty_read. After another command the shell
	// does not exec it, and waits for it.
	{"passwd", "passwd", `passwd`, prompt.KindPassword, "", "", false},
	{"cd-passwd", "passwd", `cd; passwd`, prompt.KindPassword, "", "", false},
	// sudo asks for the user's password on its own terminal (as root it
	// asks nothing: the case is skipped where the executor is root).
	{"sudo", "sudo", `sudo -k; sudo -p 'Password for sudo: ' true`, prompt.KindPassword, "", "", true},
}

func TestInProcessWaits(t *testing.T) {
	d := inProcess(t)
	checkWaits(t, newRemoteManager(t, func(string) Dialer { return d }), os.Geteuid() == 0)
}

// checkWaits runs the cases of waits on host "box" of m, then a password;
// asRoot: the executor there runs as root.
func checkWaits(t *testing.T, m *session.Manager, asRoot bool) {
	for _, c := range waits {
		t.Run(c.name, func(t *testing.T) {
			needs(t, c.prog)
			if c.user && asRoot {
				t.Skip("asks only an ordinary user; the executor runs as root")
			}
			p := start(t, m, session.Spec{Command: c.command, TTY: true, Host: "box"})
			o := await(t, p, session.ReasonInputWait)
			kernel := o.Input.Signal == prompt.SignalTTY || o.Input.Signal == prompt.SignalTTYMode
			if o.Input.Kind != c.kind || c.signal != "" && o.Input.Signal != c.signal || c.signal == "" && !kernel {
				t.Errorf("waits as %s on %s, want %s on %s (%+v)", o.Input.Kind, o.Input.Signal, c.kind, c.signal, o.Input)
			}
			if c.answer == "" {
				if _, err := p.Stop(t.Context(), 15, time.Second, session.EndedByStop); err != nil {
					t.Fatal(err)
				}
				return
			}
			if err := p.Type(t.Context(), c.answer, nil, true, false); err != nil {
				t.Fatal(err)
			}
			await(t, p, session.ReasonExited)
		})
	}
	t.Run("password", func(t *testing.T) { checkPassword(t, m) })
}

// checkPassword: a remote password is typed only once the remote kernel
// shows the read with echo off, and no view shows it.
func checkPassword(t *testing.T, m *session.Manager) {
	needs(t, "bash")
	p := start(t, m, session.Spec{Command: `read -s -p 'Password: ' pw; echo; echo "got $pw"`, TTY: true, Host: "box"})
	if _, ok := p.AwaitPassword(t.Context(), time.Now().Add(20*time.Second)); !ok {
		t.Fatalf("no password read seen: %q", output(p))
	}
	const secret = "hunter2-remote"
	p.AddSecret(secret)
	if err := p.Type(t.Context(), secret, nil, true, false); err != nil {
		t.Fatal(err)
	}
	await(t, p, session.ReasonExited)
	if out := output(p); strings.Contains(out, secret) || !strings.Contains(out, "got ") {
		t.Errorf("output %q: the secret shows, or the program did not get it", out)
	}
}

// TestInProcessResume: a dropped connection loses no output and reads
// none twice; the process runs on through it.
func TestInProcessResume(t *testing.T) {
	d := inProcess(t)
	m := newRemoteManager(t, func(string) Dialer { return d })
	p := start(t, m, session.Spec{Command: `for i in $(seq 1 3000); do echo "line $i"; done; read -p 'done? ' x`, TTY: false, Host: "box"})
	for range 3 {
		d.drop()
	}
	await(t, p, session.ReasonInputWait)
	var want strings.Builder
	for i := 1; i <= 3000; i++ {
		want.WriteString("line " + itoa(i) + "\n")
	}
	if got := output(p); got != want.String() {
		t.Errorf("output after drops: %d bytes, want %d", len(got), want.Len())
	}
	if d.dials < 2 {
		t.Errorf("%d dials: the drop did not happen while it ran", d.dials)
	}
	if _, err := p.Stop(t.Context(), 15, time.Second, session.EndedByStop); err != nil {
		t.Fatal(err)
	}
}
