package pty

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/windows"
)

// The Windows engine's tests. Their children are the test binary itself
// (helperEnv), so they need no programs beyond cmd.exe.

const helperEnv = "YS_PTY_HELPER"

// bound is how long a test waits for something that should happen at once.
const bound = 20 * time.Second

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) == "1" {
		os.Exit(runHelper(os.Args[1:]))
	}
	os.Exit(m.Run())
}

func runHelper(args []string) int {
	switch name, args := args[0], args[1:]; name {
	case "exit": // exit CODE TEXT
		code, _ := strconv.Atoi(args[0])
		fmt.Println(args[1])
		fmt.Fprintln(os.Stderr, "err:"+args[1])
		return code
	case "console": // write TEXT to the console itself, not to stdout
		f, err := os.OpenFile("CONOUT$", os.O_WRONLY, 0)
		if err != nil {
			fmt.Println("CONOUT$:", err)
			return 1
		}
		fmt.Fprintln(f, args[0])
		return 0
	case "cat": // copy stdin to stdout until EOF
		_, _ = io.Copy(os.Stdout, os.Stdin)
		return 0
	case "sleep": // print ready, then sleep
		fmt.Println("ready")
		time.Sleep(time.Hour)
	case "ignore": // ignore Ctrl-C and Ctrl-Break, then sleep
		signal.Ignore(os.Interrupt)
		fmt.Println("ready")
		time.Sleep(time.Hour)
	case "spawn": // start a detached grandchild, print its pid, sleep
		c := exec.Command(os.Args[0], "sleep")
		c.Env = append(os.Environ(), helperEnv+"=1")
		c.SysProcAttr = &syscall.SysProcAttr{CreationFlags: windows.CREATE_NEW_PROCESS_GROUP | windows.DETACHED_PROCESS}
		if err := c.Start(); err != nil {
			fmt.Println("spawn:", err)
			return 1
		}
		fmt.Println("grandchild", c.Process.Pid)
		if len(args) > 0 && args[0] == "exit" {
			return 0
		}
		time.Sleep(time.Hour)
	}
	return 2
}

func helper(tty bool, name string, args ...string) Options {
	self, _ := os.Executable()
	return Options{Path: self, Args: append([]string{self, name}, args...), TTY: tty,
		Env: append(os.Environ(), helperEnv+"=1")}
}

func newTestReaper(t testing.TB) *Reaper {
	r, err := NewReaper()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func start(t *testing.T, r *Reaper, opts Options) *Process {
	t.Helper()
	p, err := r.Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = p.Signal(syscall.SIGKILL)
		_ = p.Close()
	})
	return p
}

// collector reads a stream to its end in the background.
type collector struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	done chan struct{}
}

func collect(r io.Reader) *collector {
	c := &collector{done: make(chan struct{})}
	go func() {
		defer close(c.done)
		b := make([]byte, 4096)
		for {
			n, err := r.Read(b)
			c.mu.Lock()
			c.buf.Write(b[:n])
			c.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	return c
}

func (c *collector) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.buf.String()
}

func (c *collector) waitFor(t *testing.T, s string) {
	t.Helper()
	deadline := time.Now().Add(bound)
	for !strings.Contains(c.String(), s) {
		if time.Now().After(deadline) {
			t.Fatalf("no %q in output %q", s, c.String())
		}
		select {
		case <-c.done:
			if !strings.Contains(c.String(), s) {
				t.Fatalf("output ended without %q: %q", s, c.String())
			}
		case <-time.After(10 * time.Millisecond):
		}
	}
}

func (c *collector) end(t *testing.T) string {
	t.Helper()
	select {
	case <-c.done:
	case <-time.After(bound):
		t.Fatalf("output did not end: %q", c.String())
	}
	return c.String()
}

func wait(t *testing.T, p *Process) ExitStatus {
	t.Helper()
	select {
	case <-p.Done():
	case <-time.After(bound):
		t.Fatal("process did not exit")
	}
	return p.Status()
}

func onWine() bool {
	return windows.NewLazySystemDLL("ntdll.dll").NewProc("wine_get_version").Find() == nil
}

func TestPipeExitCodeAndStreams(t *testing.T) {
	r := newTestReaper(t)
	p := start(t, r, helper(false, "exit", "3", "hi"))
	out, errOut := collect(p.Stdout()), collect(p.Stderr())
	if st := wait(t, p); st.Code != 3 || st.Signal != 0 {
		t.Errorf("status = %+v, want code 3", st)
	}
	if got := out.end(t); got != "hi\n" {
		t.Errorf("stdout = %q", got)
	}
	if got := errOut.end(t); got != "err:hi\n" {
		t.Errorf("stderr = %q", got)
	}
}

func TestDefaultShellIsCmd(t *testing.T) {
	r := newTestReaper(t)
	p := start(t, r, Options{Path: "/bin/sh", Args: []string{"/bin/sh", "-c", `echo "a b" & exit /b 4`}})
	out := collect(p.Stdout())
	if st := wait(t, p); st.Code != 4 {
		t.Errorf("status = %+v, want code 4", st)
	}
	if got := out.end(t); !strings.Contains(got, `"a b"`) {
		t.Errorf("stdout = %q", got)
	}
}

func TestCommandLine(t *testing.T) {
	for _, c := range []struct {
		path string
		args []string
		want string
	}{
		{`C:\w\cmd.exe`, []string{"cmd", "-c", `echo "x" & dir`}, `C:\w\cmd.exe /d /s /c "echo "x" & dir"`},
		{`C:\w\CMD.EXE`, []string{"cmd", "/C", `ver`}, `C:\w\CMD.EXE /d /s /c "ver"`},
		{`C:\p s\pwsh.exe`, []string{"pwsh", "-c", `Write-Output "x y"`}, `"C:\p s\pwsh.exe" -c "Write-Output \"x y\""`},
		{`C:\g\bash.exe`, []string{"bash", "-c", "echo $HOME"}, `C:\g\bash.exe -c "echo $HOME"`},
	} {
		if _, got := commandLine(c.path, c.args); got != c.want {
			t.Errorf("commandLine(%q, %q) = %s, want %s", c.path, c.args, got, c.want)
		}
	}
}

func TestEnvLastWins(t *testing.T) {
	r := newTestReaper(t)
	o := Options{Path: "/bin/sh", Args: []string{"sh", "-c", "echo [%YS_X%]"},
		Env: append(os.Environ(), "YS_X=first", "ys_x=second")}
	p := start(t, r, o)
	out := collect(p.Stdout())
	wait(t, p)
	if got := out.end(t); !strings.Contains(got, "[second]") {
		t.Errorf("output = %q, want the last YS_X", got)
	}
}

func TestInputToEOF(t *testing.T) {
	r := newTestReaper(t)
	p := start(t, r, helper(false, "cat"))
	out := collect(p.Stdout())
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	if err := p.WriteInput(ctx, []byte("line one\n")); err != nil {
		t.Fatal(err)
	}
	out.waitFor(t, "line one")
	if err := p.CloseInput(); err != nil {
		t.Fatal(err)
	}
	if st := wait(t, p); st.Code != 0 {
		t.Errorf("status = %+v", st)
	}
}

func TestConsoleOutput(t *testing.T) {
	r := newTestReaper(t)
	p := start(t, r, helper(true, "console", "through the console"))
	out := collect(p.Stdout())
	if st := wait(t, p); st.Code != 0 {
		t.Errorf("status = %+v", st)
	}
	if got := out.end(t); !strings.Contains(got, "through the console") {
		t.Errorf("output = %q", got)
	}
}

func TestConsoleStdout(t *testing.T) {
	if onWine() {
		t.Skip("wine 8 attaches the child to the pseudo console but gives it no console standard handles (kernelbase init_console only connects)")
	}
	r := newTestReaper(t)
	p := start(t, r, Options{Path: "/bin/sh", Args: []string{"sh", "-c", "echo hello"}, TTY: true})
	out := collect(p.Stdout())
	wait(t, p)
	if got := out.end(t); !strings.Contains(got, "hello") {
		t.Errorf("output = %q", got)
	}
}

func TestResize(t *testing.T) {
	r := newTestReaper(t)
	p := start(t, r, helper(true, "sleep"))
	if c, rows := p.Size(); c != DefaultCols || rows != DefaultRows {
		t.Errorf("size = %dx%d", c, rows)
	}
	if _, _, err := p.Modes(); err == nil {
		t.Error("Modes succeeded on a pseudo console")
	}
	q := start(t, r, helper(false, "sleep"))
	if err := q.Resize(80, 24); err == nil {
		t.Error("Resize succeeded in pipe mode")
	}
	err := p.Resize(100, 30)
	if onWine() && errors.Is(err, syscall.Errno(windows.E_NOTIMPL)) {
		t.Skip("wine 8: ResizePseudoConsole is not implemented (E_NOTIMPL)")
	}
	if err != nil {
		t.Fatal(err)
	}
	if c, rows := p.Size(); c != 100 || rows != 30 {
		t.Errorf("size = %dx%d after resize", c, rows)
	}
}

// gone waits until process pid has ended.
func gone(t *testing.T, pid int) {
	t.Helper()
	h, err := windows.OpenProcess(windows.SYNCHRONIZE, false, uint32(pid))
	if err != nil {
		return // already gone
	}
	defer windows.CloseHandle(h)
	if ev, _ := windows.WaitForSingleObject(h, uint32(bound/time.Millisecond)); ev != windows.WAIT_OBJECT_0 {
		t.Errorf("process %d still runs", pid)
	}
}

func grandchild(t *testing.T, out *collector) int {
	t.Helper()
	out.waitFor(t, "\n")
	var pid int
	if _, err := fmt.Sscanf(out.String(), "grandchild %d", &pid); err != nil {
		t.Fatalf("no grandchild pid in %q", out.String())
	}
	return pid
}

// TestKillEndsTree: the job holds a detached grandchild, and SIGKILL ends
// it with the child.
func TestKillEndsTree(t *testing.T) {
	for _, tty := range []bool{false, true} {
		t.Run(fmt.Sprint("tty=", tty), func(t *testing.T) {
			if tty && onWine() {
				t.Skip("wine 8: the child's stdout does not reach the pseudo console")
			}
			r := newTestReaper(t)
			p := start(t, r, helper(tty, "spawn"))
			gc := grandchild(t, collect(p.Stdout()))
			if !TreeAlive(p.Pid(), "", "") {
				t.Error("TreeAlive = false while it runs")
			}
			// The job may also hold the console host of a child that has
			// no console to share.
			if m := Members(p.Pid(), "", ""); !slices.Contains(m, p.Pid()) || !slices.Contains(m, gc) {
				t.Errorf("Members = %v, want the child %d and %d", m, p.Pid(), gc)
			}
			if err := p.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			if st := wait(t, p); st.Signal != syscall.SIGKILL {
				t.Errorf("status = %+v", st)
			}
			gone(t, gc)
		})
	}
}

// TestOrphanEndsWithReaper: a grandchild left behind by a child that
// exited is still in the job, and Reaper.Close (the server's shutdown)
// ends it.
func TestOrphanEndsWithReaper(t *testing.T) {
	r := newTestReaper(t)
	p := start(t, r, helper(false, "spawn", "exit"))
	gc := grandchild(t, collect(p.Stdout()))
	wait(t, p)
	if !TreeAlive(p.Pid(), "", "") {
		t.Error("TreeAlive = false while the grandchild runs")
	}
	if err := p.Signal(syscall.SIGTERM); err != nil {
		t.Errorf("Signal after the child's exit: %v", err)
	}
	r.Close()
	gone(t, gc)
	if TreeAlive(p.Pid(), "", "") {
		t.Error("TreeAlive = true after Close")
	}
}

// TestGracefulStop: a request to stop ends a program that does not ignore
// it; one that ignores Ctrl-C still ends with SIGKILL.
func TestGracefulStop(t *testing.T) {
	r := newTestReaper(t)
	p := start(t, r, helper(false, "sleep"))
	collect(p.Stdout()).waitFor(t, "ready")
	if err := p.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	st := wait(t, p)
	t.Logf("stopped: %+v", st)
	if st.Signal == 0 {
		t.Errorf("status = %+v, want ended by a signal", st)
	}

	q := start(t, r, helper(false, "ignore"))
	collect(q.Stdout()).waitFor(t, "ready")
	_ = q.Signal(syscall.SIGTERM)
	select {
	case <-q.Done():
		t.Logf("ignorer ended by the request: %+v", q.Status())
	case <-time.After(500 * time.Millisecond):
		if err := q.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		if st := wait(t, q); st.Signal != syscall.SIGKILL {
			t.Errorf("status = %+v", st)
		}
	}
	if err := q.Signal(syscall.SIGKILL); err == nil {
		t.Error("Signal after the tree ended succeeded")
	}
}

func TestStartFailures(t *testing.T) {
	r := newTestReaper(t)
	if _, err := r.Start(Options{Path: `C:\no\such.exe`}); err == nil {
		t.Error("missing program started")
	}
	if _, err := r.Start(helper(false, "exit", "0", "x")); err != nil {
		t.Fatal(err)
	}
	o := helper(false, "exit", "0", "x")
	o.Dir = `C:\no\such\dir`
	if _, err := r.Start(o); err == nil || !strings.Contains(err.Error(), "chdir") {
		t.Errorf("bad dir: %v", err)
	}
	r.Close()
	if _, err := r.Start(helper(false, "exit", "0", "x")); err == nil {
		t.Error("Start after Close succeeded")
	}
}

// TestCtrlBreakStops: with a console to share, a request to stop reaches a
// pipe-mode command as Ctrl-Break, which ends it as SIGINT; one that
// ignores it is left running.
func TestCtrlBreakStops(t *testing.T) {
	if !hasConsole() {
		k := windows.NewLazySystemDLL("kernel32.dll")
		if r, _, err := k.NewProc("AllocConsole").Call(); r == 0 {
			t.Skipf("no console to share: %v", err)
		}
		t.Cleanup(func() { _, _, _ = k.NewProc("FreeConsole").Call() })
	}
	r := newTestReaper(t)
	p := start(t, r, helper(false, "sleep"))
	collect(p.Stdout()).waitFor(t, "ready")
	if err := p.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if st := wait(t, p); st.Signal != syscall.SIGINT {
		t.Errorf("status = %+v, want ended by Ctrl-Break (SIGINT)", st)
	}
	q := start(t, r, helper(false, "ignore"))
	collect(q.Stdout()).waitFor(t, "ready")
	if err := q.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-q.Done():
		t.Errorf("a program ignoring Ctrl-Break ended: %+v", q.Status())
	case <-time.After(300 * time.Millisecond):
	}
}
