//go:build unix

package pty

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/signal"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// helperEnv marks the test binary running as a child. The children are the
// test binary itself so their behaviour is exact and needs no other programs.
const helperEnv = "YS_PTY_HELPER"

// bound is how long a test waits for something that should happen at once;
// reaching it means failure, it is never a synchronisation delay.
const bound = 10 * time.Second

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) == "1" {
		os.Exit(runHelper(os.Args[1:]))
	}
	os.Exit(m.Run())
}

// runHelper is the child side. Helpers that must stay alive sleep for an
// hour: they are always killed by the test's cleanup.
func runHelper(args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "helper: no name")
		return 2
	}
	switch name, args := args[0], args[1:]; name {
	case "exit": // exit CODE TEXT: print TEXT, exit CODE
		code, _ := strconv.Atoi(args[0])
		fmt.Println(args[1])
		return code
	case "nonl": // output without a trailing newline
		fmt.Print("partial")
		return 0
	case "isatty": // report whether stdin is a terminal, and its size
		_, err := unix.IoctlGetTermios(0, ioctlGetTermios)
		var cols, rows uint16
		if ws, err := unix.IoctlGetWinsize(0, unix.TIOCGWINSZ); err == nil {
			cols, rows = ws.Col, ws.Row
		}
		fmt.Printf("tty=%v size=%dx%d\n", err == nil, cols, rows)
		return 0
	case "winch": // report the size, then the size after one SIGWINCH
		c := make(chan os.Signal, 1)
		signal.Notify(c, syscall.SIGWINCH)
		ws, _ := unix.IoctlGetWinsize(0, unix.TIOCGWINSZ)
		fmt.Printf("ready %dx%d\n", ws.Col, ws.Row)
		<-c
		ws, _ = unix.IoctlGetWinsize(0, unix.TIOCGWINSZ)
		fmt.Printf("size %dx%d\n", ws.Col, ws.Row)
		return 0
	case "echoline": // read one line and echo it
		line, err := bufio.NewReader(os.Stdin).ReadString('\n')
		fmt.Printf("got %q %v\n", line, err)
		return 0
	case "cat": // copy stdin to stdout until EOF
		n, err := io.Copy(os.Stdout, os.Stdin)
		fmt.Printf("EOF n=%d err=%v\n", n, err)
		return 0
	case "gatecat": // like cat, but only after SIGUSR1 (so input can back up)
		c := make(chan os.Signal, 1)
		signal.Notify(c, syscall.SIGUSR1)
		fmt.Println("ready")
		<-c
		_, _ = io.Copy(os.Stdout, os.Stdin)
		return 0
	case "sleep": // stay alive until killed
		fmt.Println("ready")
		time.Sleep(time.Hour)
		return 0
	case "ignoreterm": // survive SIGTERM; answer a line to prove it
		signal.Ignore(syscall.SIGTERM)
		fmt.Println("ready")
		_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
		fmt.Println("alive")
		time.Sleep(time.Hour)
		return 0
	case "split": // one line to each output stream
		fmt.Fprintln(os.Stdout, "to stdout")
		fmt.Fprintln(os.Stderr, "to stderr")
		return 0
	case "bulk": // bulk N: N lines of bulkLine
		n, _ := strconv.Atoi(args[0])
		w := bufio.NewWriterSize(os.Stdout, 4096)
		for i := range n {
			_, _ = w.WriteString(bulkLine(i, "\n"))
		}
		_ = w.Flush()
		return 0
	case "grandchild": // grandchild hold|detach: leave a setsid'd grandchild
		// behind, holding our terminal (hold) or not (detach).
		files := []*os.File{os.Stdin, os.Stdout, os.Stderr}
		if args[0] == "detach" {
			null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
			if err != nil {
				fmt.Println("open:", err)
				return 1
			}
			files = []*os.File{null, null, null}
		}
		exe, _ := os.Executable()
		proc, err := os.StartProcess(exe, []string{exe, "sleep"}, &os.ProcAttr{
			Files: files,
			Sys:   &syscall.SysProcAttr{Setsid: true},
		})
		if err != nil {
			fmt.Println("start:", err)
			return 1
		}
		fmt.Printf("gpid %d\n", proc.Pid)
		return 0
	}
	fmt.Fprintln(os.Stderr, "helper: unknown", args[0])
	return 2
}

func bulkLine(i int, nl string) string {
	return fmt.Sprintf("%08d %s%s", i, strings.Repeat("x", 90), nl)
}

// mode is how a test connects a process: a terminal or pipes.
type mode bool

const (
	onTerminal mode = true
	onPipes    mode = false
)

func (m mode) String() string {
	if m == onTerminal {
		return "tty"
	}
	return "pipe"
}

// helper describes a run of the test binary as helper name with args.
func helper(m mode, name string, args ...string) Options {
	exe, err := os.Executable()
	if err != nil {
		panic(err)
	}
	return Options{
		Path: exe,
		Args: append([]string{exe, name}, args...),
		Env:  append(os.Environ(), helperEnv+"=1"),
		TTY:  bool(m),
	}
}

func shell(m mode, script string) Options {
	return Options{
		Path: "/bin/sh",
		Args: []string{"sh", "-c", script},
		Env:  os.Environ(),
		TTY:  bool(m),
	}
}

func newTestReaper(t testing.TB) *Reaper {
	t.Helper()
	r, err := NewReaper()
	if err != nil {
		t.Fatalf("NewReaper: %v", err)
	}
	t.Cleanup(func() { _ = r.Close() })
	return r
}

// tproc is a started process with its outputs being collected.
type tproc struct {
	*Process
	out, errOut *collector
}

// start starts opts and arranges for the process group to be killed, the
// process reaped, its descriptors closed and its readers joined at cleanup.
func start(t *testing.T, r *Reaper, opts Options) *tproc {
	t.Helper()
	p, err := r.Start(opts)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	tp := &tproc{Process: p, out: collect(p.Stdout())}
	if e := p.Stderr(); e != nil {
		tp.errOut = collect(e)
	}
	t.Cleanup(func() {
		_ = p.Signal(syscall.SIGKILL)
		select {
		case <-p.Done():
		case <-time.After(bound):
			t.Errorf("cleanup: pid %d not reaped", p.Pid())
		}
		_ = p.Close()
		for _, c := range []*collector{tp.out, tp.errOut} {
			if c == nil {
				continue
			}
			select {
			case <-c.eof:
			case <-time.After(bound):
				t.Errorf("cleanup: reader of pid %d not done", p.Pid())
			}
		}
	})
	return tp
}

func (tp *tproc) wait(t *testing.T) ExitStatus {
	t.Helper()
	select {
	case <-tp.Done():
		return tp.Status()
	case <-time.After(bound):
		t.Fatalf("pid %d did not exit; output %q", tp.Pid(), tp.out.String())
		return ExitStatus{}
	}
}

// collector reads a stream to its end on its own goroutine, which the test
// joins through eof.
type collector struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	err    error
	notify chan struct{} // a token after each read
	eof    chan struct{} // closed when Read returned an error
}

func collect(r io.Reader) *collector {
	c := &collector{notify: make(chan struct{}, 1), eof: make(chan struct{})}
	go func() {
		defer close(c.eof)
		b := make([]byte, 32<<10)
		for {
			n, err := r.Read(b)
			c.mu.Lock()
			c.buf.Write(b[:n])
			c.err = err
			c.mu.Unlock()
			select {
			case c.notify <- struct{}{}:
			default:
			}
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

// end waits for the end of the stream and returns everything and the error
// that ended it.
func (c *collector) end(t *testing.T) (string, error) {
	t.Helper()
	select {
	case <-c.eof:
	case <-time.After(bound):
		t.Fatalf("no end of output; got %q", c.String())
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.buf.String(), c.err
}

// match waits until the output matches pattern and returns the submatches.
func (c *collector) match(t *testing.T, pattern string) []string {
	t.Helper()
	re := regexp.MustCompile(pattern)
	timeout := time.After(bound)
	for {
		if m := re.FindStringSubmatch(c.String()); m != nil {
			return m
		}
		select {
		case <-c.notify:
		case <-c.eof:
			if m := re.FindStringSubmatch(c.String()); m != nil {
				return m
			}
			t.Fatalf("output ended without %q; got %q", pattern, c.String())
		case <-timeout:
			t.Fatalf("no %q in output; got %q", pattern, c.String())
		}
	}
}
