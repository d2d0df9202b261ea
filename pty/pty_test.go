//go:build unix

package pty

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func TestExitCode(t *testing.T) {
	for _, tty := range []mode{onTerminal, onPipes} {
		t.Run(tty.String(), func(t *testing.T) {
			r := newTestReaper(t)
			p := start(t, r, helper(tty, "exit", "3", "bye"))
			if p.TTY() != bool(tty) {
				t.Errorf("TTY() = %v, want %v", p.TTY(), tty)
			}
			if got, want := p.wait(t), (ExitStatus{Code: 3}); got != want {
				t.Errorf("status = %+v, want %+v", got, want)
			}
			out, err := p.out.end(t)
			if err != io.EOF {
				t.Errorf("read error = %v, want io.EOF", err)
			}
			if want := "bye\n"; tty == onTerminal {
				if want = "bye\r\n"; out != want {
					t.Errorf("output = %q, want %q", out, want)
				}
			} else if out != want {
				t.Errorf("output = %q, want %q", out, want)
			}
		})
	}
}

func TestShellExitCode(t *testing.T) {
	r := newTestReaper(t)
	p := start(t, r, shell(onTerminal, "exit 7"))
	if got, want := p.wait(t), (ExitStatus{Code: 7}); got != want {
		t.Errorf("status = %+v, want %+v", got, want)
	}
}

func TestPidIsGroupAndSession(t *testing.T) {
	for _, tty := range []mode{onTerminal, onPipes} {
		t.Run(tty.String(), func(t *testing.T) {
			r := newTestReaper(t)
			p := start(t, r, helper(tty, "sleep"))
			p.out.match(t, "ready")
			pgid, err := unix.Getpgid(p.Pid())
			if err != nil {
				t.Fatal(err)
			}
			sid, err := unix.Getsid(p.Pid())
			if err != nil {
				t.Fatal(err)
			}
			if pgid != p.Pid() || sid != p.Pid() {
				t.Errorf("pid %d: pgid %d sid %d, want all equal", p.Pid(), pgid, sid)
			}
		})
	}
}

func TestKilledBySignal(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			r := newTestReaper(t)
			p := start(t, r, helper(onTerminal, "sleep"))
			p.out.match(t, "ready")
			if err := p.Signal(sig); err != nil {
				t.Fatalf("Signal: %v", err)
			}
			if got, want := p.wait(t), (ExitStatus{Code: -int(sig), Signal: sig}); got != want {
				t.Errorf("status = %+v, want %+v", got, want)
			}
		})
	}
}

func TestIgnoredSignal(t *testing.T) {
	r := newTestReaper(t)
	p := start(t, r, helper(onPipes, "ignoreterm"))
	p.out.match(t, "ready")
	if err := p.Signal(syscall.SIGTERM); err != nil {
		t.Fatalf("Signal: %v", err)
	}
	// An ignored signal is discarded by kill(2) itself, so if the child
	// still answers after it, SIGTERM did not end it.
	if err := p.WriteInput(context.Background(), []byte("ping\n")); err != nil {
		t.Fatalf("WriteInput: %v", err)
	}
	p.out.match(t, "alive")
	select {
	case <-p.Done():
		t.Fatalf("exited after ignored SIGTERM: %+v", p.Status())
	default:
	}
	if err := p.Signal(syscall.SIGKILL); err != nil {
		t.Fatalf("Signal: %v", err)
	}
	if got := p.wait(t); got.Signal != syscall.SIGKILL || got.Code != -9 {
		t.Errorf("status = %+v, want SIGKILL", got)
	}
}

func TestSignalAfterExit(t *testing.T) {
	r := newTestReaper(t)
	p := start(t, r, helper(onPipes, "exit", "0", "x"))
	p.wait(t)
	err := p.Signal(syscall.SIGTERM)
	if !errors.Is(err, unix.ESRCH) {
		t.Errorf("Signal after exit = %v, want ESRCH", err)
	}
}

func TestStatusBeforeDone(t *testing.T) {
	r := newTestReaper(t)
	p := start(t, r, helper(onPipes, "sleep"))
	p.out.match(t, "ready")
	if got := p.Status(); got != (ExitStatus{}) {
		t.Errorf("Status while running = %+v, want zero", got)
	}
}

func TestTTYOutputComplete(t *testing.T) {
	const lines = 1000 // 100 KB
	r := newTestReaper(t)
	p := start(t, r, helper(onTerminal, "bulk", strconv.Itoa(lines)))
	p.wait(t)
	out, err := p.out.end(t)
	if err != io.EOF {
		t.Errorf("read error = %v, want io.EOF", err)
	}
	var want strings.Builder
	for i := range lines {
		want.WriteString(bulkLine(i, "\r\n"))
	}
	if out != want.String() {
		t.Errorf("got %d bytes, want %d (ONLCR included)", len(out), want.Len())
		for i := 0; i < len(out) && i < want.Len(); i++ {
			if out[i] != want.String()[i] {
				t.Errorf("first difference at byte %d", i)
				break
			}
		}
	}
}

func TestTTYEIOIsEOF(t *testing.T) {
	r := newTestReaper(t)
	p := start(t, r, helper(onTerminal, "nonl"))
	out, err := p.out.end(t)
	if err != io.EOF {
		t.Errorf("read error = %v, want io.EOF", err)
	}
	if out != "partial" {
		t.Errorf("output = %q, want %q", out, "partial")
	}
	// Later reads keep saying EOF.
	if n, err := p.Stdout().Read(make([]byte, 10)); n != 0 || err != io.EOF {
		t.Errorf("second Read = %d, %v; want 0, io.EOF", n, err)
	}
	p.wait(t)
}

func TestTerminalSize(t *testing.T) {
	tests := []struct {
		name       string
		tty        mode
		cols, rows uint16
		want       string
	}{
		{"default", onTerminal, 0, 0, "tty=true size=120x40"},
		{"given", onTerminal, 80, 24, "tty=true size=80x24"},
		{"pipe", onPipes, 0, 0, "tty=false size=0x0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newTestReaper(t)
			opts := helper(tt.tty, "isatty")
			opts.Cols, opts.Rows = tt.cols, tt.rows
			p := start(t, r, opts)
			p.out.match(t, tt.want)
		})
	}
}

// TestStreamsOpenedAhead: a start leaves a terminal (or pipes) opened
// ahead, which the next start of that mode runs on, at the size it asks
// for, configured as fresh ones are; Close closes them.
func TestStreamsOpenedAhead(t *testing.T) {
	t.Run("terminal", func(t *testing.T) {
		r := newTestReaper(t)
		start(t, r, shell(onTerminal, "true")).wait(t)
		spare := r.terminals.v
		if spare == nil {
			t.Fatal("no terminal was opened ahead")
		}
		for _, size := range []struct {
			cols, rows uint16
			want       string
		}{{80, 24, `^24 80\r\n`}, {0, 0, `^40 120\r\n`}} {
			opts := shell(onTerminal, "stty size")
			opts.Cols, opts.Rows = size.cols, size.rows
			p := start(t, r, opts)
			p.out.match(t, size.want)
			term := p.io.(*terminal)
			if term != spare {
				t.Errorf("the command ran on %s, not on the one opened ahead, %s", term.slave.Name(), spare.slave.Name())
			}
			if tio, err := term.termios(); err != nil || tio.Iflag&unix.IUTF8 == 0 || tio.Oflag&unix.ONLCR == 0 {
				t.Errorf("termios: %+v, %v; want IUTF8 and ONLCR", tio, err)
			}
			p.wait(t)
			spare = r.terminals.v
		}
		_ = r.Close()
		if r.terminals.v != nil {
			t.Error("Close left a terminal opened ahead")
		}
		if _, err := spare.master.Stat(); !errors.Is(err, os.ErrClosed) {
			t.Errorf("the terminal opened ahead, after Close: %v, want closed", err)
		}
	})
	t.Run("pipes", func(t *testing.T) {
		r := newTestReaper(t)
		start(t, r, shell(onPipes, "true")).wait(t)
		spare := r.pipes.v
		if spare == nil {
			t.Fatal("no pipes were opened ahead")
		}
		p := start(t, r, shell(onPipes, "echo out; echo err >&2; read x; echo got $x"))
		if p.io.(*pipes) != spare {
			t.Error("the command did not run on the pipes opened ahead")
		}
		p.out.match(t, "out")
		p.errOut.match(t, "err")
		if err := p.WriteInput(context.Background(), []byte("in\n")); err != nil {
			t.Fatal(err)
		}
		p.out.match(t, "got in")
		p.wait(t)
		spare = r.pipes.v
		_ = r.Close()
		if _, err := spare.in.Stat(); !errors.Is(err, os.ErrClosed) {
			t.Errorf("the pipes opened ahead, after Close: %v, want closed", err)
		}
	})
}

func TestResize(t *testing.T) {
	r := newTestReaper(t)
	p := start(t, r, helper(onTerminal, "winch"))
	p.out.match(t, `ready 120x40\r\n`)
	if c, rw := p.Size(); c != 120 || rw != 40 {
		t.Errorf("Size() = %dx%d, want 120x40", c, rw)
	}
	if err := p.Resize(100, 30); err != nil {
		t.Fatalf("Resize: %v", err)
	}
	p.out.match(t, `size 100x30\r\n`)
	if c, rw := p.Size(); c != 100 || rw != 30 {
		t.Errorf("Size() = %dx%d, want 100x30", c, rw)
	}
	if err := p.Resize(0, 30); err == nil {
		t.Errorf("Resize(0, 30) succeeded")
	}
	p.wait(t)
}

func TestStttySizeSeesResize(t *testing.T) {
	r := newTestReaper(t)
	p := start(t, r, shell(onTerminal, "stty size; read x; stty size"))
	p.out.match(t, `^40 120\r\n`)
	if err := p.Resize(90, 33); err != nil {
		t.Fatalf("Resize: %v", err)
	}
	if err := p.WriteInput(context.Background(), []byte("\n")); err != nil {
		t.Fatalf("WriteInput: %v", err)
	}
	p.out.match(t, `\n33 90\r\n`)
	p.wait(t)
}

func TestTermios(t *testing.T) {
	r := newTestReaper(t)
	p := start(t, r, shell(onTerminal, "stty -a; echo END"))
	p.out.match(t, "END")
	flags := map[string]bool{}
	for _, f := range strings.FieldsFunc(p.out.String(), func(r rune) bool {
		return r == ' ' || r == ';' || r == '\r' || r == '\n'
	}) {
		flags[f] = true
	}
	for _, f := range []string{"iutf8", "onlcr", "opost", "icanon", "echo"} {
		if !flags[f] || flags["-"+f] {
			t.Errorf("stty -a lacks %s: %q", f, p.out.String())
		}
	}
	// The same through the master.
	tio, err := p.io.(*terminal).termios()
	if err != nil {
		t.Fatalf("termios: %v", err)
	}
	if tio.Iflag&unix.IUTF8 == 0 || tio.Oflag&unix.ONLCR == 0 {
		t.Errorf("termios iflag %#x oflag %#x: want IUTF8 and ONLCR", tio.Iflag, tio.Oflag)
	}
	p.wait(t)
}

func TestEcho(t *testing.T) {
	r := newTestReaper(t)
	p := start(t, r, shell(onTerminal, "stty -echo; echo ECHO-OFF; read x; stty echo; echo ECHO-ON; read y"))
	ctx := context.Background()
	p.out.match(t, "ECHO-OFF")
	if on, _, err := p.Modes(); err != nil || on {
		t.Errorf("echo after stty -echo = %v, %v; want false", on, err)
	}
	if err := p.WriteInput(ctx, []byte("secret\n")); err != nil {
		t.Fatal(err)
	}
	p.out.match(t, "ECHO-ON")
	if on, _, err := p.Modes(); err != nil || !on {
		t.Errorf("echo after stty echo = %v, %v; want true", on, err)
	}
	if err := p.WriteInput(ctx, []byte("\n")); err != nil {
		t.Fatal(err)
	}
	p.wait(t)
	if strings.Contains(p.out.String(), "secret") {
		t.Errorf("input echoed with echo off: %q", p.out.String())
	}
}

func TestForegroundPgrp(t *testing.T) {
	r := newTestReaper(t)
	p := start(t, r, shell(onTerminal, "echo ready; read x"))
	p.out.match(t, "ready")
	pg, err := p.ForegroundPgrp()
	if err != nil {
		t.Fatalf("ForegroundPgrp: %v", err)
	}
	if pg != p.Pid() {
		t.Errorf("ForegroundPgrp() = %d, want pid %d", pg, p.Pid())
	}
	if err := p.WriteInput(context.Background(), []byte("\n")); err != nil {
		t.Fatal(err)
	}
	p.wait(t)
}

func TestNotTTY(t *testing.T) {
	r := newTestReaper(t)
	p := start(t, r, helper(onPipes, "sleep"))
	if err := p.Resize(80, 24); !errors.Is(err, ErrNotTTY) {
		t.Errorf("Resize = %v, want ErrNotTTY", err)
	}
	if _, err := p.ForegroundPgrp(); !errors.Is(err, ErrNotTTY) {
		t.Errorf("ForegroundPgrp = %v, want ErrNotTTY", err)
	}
	if _, _, err := p.Modes(); !errors.Is(err, ErrNotTTY) {
		t.Errorf("Modes = %v, want ErrNotTTY", err)
	}
	if c, rw := p.Size(); c != 0 || rw != 0 {
		t.Errorf("Size() = %dx%d, want 0x0", c, rw)
	}
	if p.Stderr() == nil {
		t.Errorf("pipe mode Stderr() = nil")
	}
	q := start(t, r, helper(onTerminal, "sleep"))
	if q.Stderr() != nil {
		t.Errorf("TTY mode Stderr() != nil")
	}
}

func TestInputToEOF(t *testing.T) {
	for _, tty := range []mode{onTerminal, onPipes} {
		t.Run(tty.String(), func(t *testing.T) {
			r := newTestReaper(t)
			p := start(t, r, helper(tty, "cat"))
			if err := p.WriteInput(context.Background(), []byte("hello\n")); err != nil {
				t.Fatalf("WriteInput: %v", err)
			}
			// In TTY mode EOF only works at the start of a line, which
			// this is.
			if err := p.CloseInput(); err != nil {
				t.Fatalf("CloseInput: %v", err)
			}
			if got := p.wait(t); got != (ExitStatus{}) {
				t.Errorf("status = %+v, want 0", got)
			}
			p.out.match(t, "EOF n=6 err=<nil>")
			if err := p.CloseInput(); tty == onPipes && err != nil {
				t.Errorf("second CloseInput = %v, want nil", err)
			}
			if err := p.WriteInput(context.Background(), []byte("x")); !errors.Is(err, ErrInputClosed) {
				t.Errorf("WriteInput after CloseInput = %v, want ErrInputClosed", err)
			}
		})
	}
}

func TestEchoLine(t *testing.T) {
	r := newTestReaper(t)
	p := start(t, r, helper(onTerminal, "echoline"))
	if err := p.WriteInput(context.Background(), []byte("héllo\n")); err != nil {
		t.Fatal(err)
	}
	p.out.match(t, `got "héllo\\n" <nil>`)
	p.wait(t)
}

func TestWriteInputHonoursContext(t *testing.T) {
	r := newTestReaper(t)
	p := start(t, r, helper(onPipes, "gatecat"))
	p.out.match(t, "ready")
	big := make([]byte, 1<<20) // far more than a pipe holds

	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	t0 := time.Now()
	err := p.WriteInput(ctx, big)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("WriteInput with timeout = %v, want DeadlineExceeded", err)
	}
	if d := time.Since(t0); d > 2*time.Second {
		t.Errorf("WriteInput with timeout took %v", d)
	}

	// No deadline: only cancellation can end the write.
	ctx2, cancel2 := context.WithCancel(context.Background())
	stop := time.AfterFunc(100*time.Millisecond, cancel2)
	defer stop.Stop()
	t0 = time.Now()
	err = p.WriteInput(ctx2, big)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("WriteInput cancelled = %v, want Canceled", err)
	}
	if d := time.Since(t0); d > 2*time.Second {
		t.Errorf("cancelled WriteInput took %v", d)
	}

	// Already-done context: nothing is attempted.
	if err := p.WriteInput(ctx2, []byte("x")); !errors.Is(err, context.Canceled) {
		t.Errorf("WriteInput with done ctx = %v, want Canceled", err)
	}

	// The earlier deadlines must not leak into a later write.
	if err := p.Signal(syscall.SIGUSR1); err != nil {
		t.Fatal(err)
	}
	if err := p.WriteInput(context.Background(), []byte("\ntail\n")); err != nil {
		t.Fatalf("WriteInput after cancellations: %v", err)
	}
	if err := p.CloseInput(); err != nil {
		t.Fatal(err)
	}
	out, _ := p.out.end(t)
	if !strings.HasSuffix(out, "\ntail\n") {
		t.Errorf("output does not end with the last write: ...%q", out[max(0, len(out)-20):])
	}
	p.wait(t)
}

func TestWriteInputConcurrent(t *testing.T) {
	r := newTestReaper(t)
	p := start(t, r, helper(onPipes, "cat"))
	const writers, each = 8, 100
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				line := fmt.Sprintf("w%d-%03d\n", w, i)
				if err := p.WriteInput(context.Background(), []byte(line)); err != nil {
					t.Errorf("WriteInput: %v", err)
					return
				}
			}
		})
	}
	wg.Wait()
	if err := p.CloseInput(); err != nil {
		t.Fatal(err)
	}
	out, _ := p.out.end(t)
	for w := range writers {
		for i := range each {
			if line := fmt.Sprintf("w%d-%03d\n", w, i); !strings.Contains(out, line) {
				t.Fatalf("line %q missing or torn", line)
			}
		}
	}
	p.wait(t)
}

func TestWriteInputClosed(t *testing.T) {
	for _, tty := range []mode{onTerminal, onPipes} {
		t.Run(tty.String(), func(t *testing.T) {
			r := newTestReaper(t)
			p := start(t, r, helper(tty, "exit", "0", "bye"))
			p.wait(t)
			p.out.end(t) // the terminal has no holder left
			err := p.WriteInput(context.Background(), []byte("late\n"))
			if !errors.Is(err, ErrInputClosed) {
				t.Errorf("WriteInput to exited process = %v, want ErrInputClosed", err)
			}
			if err := p.Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
			err = p.WriteInput(context.Background(), []byte("later\n"))
			if !errors.Is(err, ErrInputClosed) {
				t.Errorf("WriteInput after Close = %v, want ErrInputClosed", err)
			}
		})
	}
}

func TestPipeKeepsStreamsApart(t *testing.T) {
	r := newTestReaper(t)
	p := start(t, r, helper(onPipes, "split"))
	p.wait(t)
	if out, err := p.out.end(t); out != "to stdout\n" || err != io.EOF {
		t.Errorf("stdout = %q, %v", out, err)
	}
	if out, err := p.errOut.end(t); out != "to stderr\n" || err != io.EOF {
		t.Errorf("stderr = %q, %v", out, err)
	}
}

func TestCloseUnblocksRead(t *testing.T) {
	for _, tty := range []mode{onTerminal, onPipes} {
		t.Run(tty.String(), func(t *testing.T) {
			r := newTestReaper(t)
			p := start(t, r, helper(tty, "sleep"))
			p.out.match(t, "ready")
			// The collectors are now blocked in Read on a live stream.
			t0 := time.Now()
			if err := p.Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
			for _, c := range []*collector{p.out, p.errOut} {
				if c == nil {
					continue
				}
				select {
				case <-c.eof:
				case <-time.After(2 * time.Second):
					t.Fatalf("Read still blocked after Close")
				}
				if _, err := c.end(t); err != io.EOF {
					t.Errorf("Read after Close = %v, want io.EOF", err)
				}
			}
			if d := time.Since(t0); d > time.Second {
				t.Errorf("Close took %v to unblock Read", d)
			}
			if err := p.Close(); err != nil {
				t.Errorf("second Close = %v", err)
			}
			if c, rw := p.Size(); tty == onTerminal && (c != 0 || rw != 0) {
				t.Errorf("Size after Close = %dx%d", c, rw)
			}
			if _, _, err := p.Modes(); tty == onTerminal && !errors.Is(err, os.ErrClosed) {
				t.Errorf("Modes after Close = %v, want os.ErrClosed", err)
			}
		})
	}
}

// gpid waits for the "grandchild" helper's report of its grandchild's pid and
// arranges for the grandchild to be killed at cleanup.
func gpid(t *testing.T, p *tproc) int {
	t.Helper()
	m := p.out.match(t, `gpid (\d+)\r?\n`)
	pid, _ := strconv.Atoi(m[1])
	t.Cleanup(func() { _ = unix.Kill(pid, syscall.SIGKILL) })
	return pid
}

func TestGrandchildHoldingTerminal(t *testing.T) {
	r := newTestReaper(t)
	p := start(t, r, helper(onTerminal, "grandchild", "hold"))
	if got := p.wait(t); got != (ExitStatus{}) {
		t.Fatalf("status = %+v, want 0", got)
	}
	g := gpid(t, p)
	// Done fired although a descendant still holds the terminal open.
	select {
	case <-p.out.eof:
		t.Fatalf("EOF while grandchild %d holds the terminal", g)
	default:
	}
	if err := unix.Kill(g, syscall.SIGKILL); err != nil {
		t.Fatalf("killing grandchild: %v", err)
	}
	if _, err := p.out.end(t); err != io.EOF {
		t.Errorf("read error = %v, want io.EOF", err)
	}
}

func TestOrphanReaped(t *testing.T) {
	// Process-wide and permanent, which is fine for the test binary: every
	// test's Reaper reaps adopted orphans.
	if err := SetChildSubreaper(); err != nil {
		t.Fatalf("SetChildSubreaper: %v", err)
	}
	reaped := make(chan int, 16)
	r := newReaper(func(pid int, ws unix.WaitStatus) {
		select {
		case reaped <- pid:
		default:
		}
	})
	t.Cleanup(func() { _ = r.Close() })

	p := start(t, r, helper(onPipes, "grandchild", "detach"))
	p.wait(t)
	g := gpid(t, p)
	// The grandchild was reparented when its parent exited, before the
	// parent's status became available.
	if ppid := statPPid(t, g); ppid != os.Getpid() {
		t.Fatalf("orphan %d has ppid %d, want us (%d)", g, ppid, os.Getpid())
	}
	if err := unix.Kill(g, syscall.SIGKILL); err != nil {
		t.Fatalf("killing orphan: %v", err)
	}
	timeout := time.After(bound)
	for found := false; !found; {
		select {
		case pid := <-reaped:
			found = pid == g
		case <-timeout:
			t.Fatalf("orphan %d not reaped", g)
		}
	}
	var ws unix.WaitStatus
	if _, err := unix.Wait4(g, &ws, unix.WNOHANG, nil); err != unix.ECHILD {
		t.Errorf("wait4(%d) = %v, want ECHILD (already reaped)", g, err)
	}
	if _, err := os.Stat(fmt.Sprintf("/proc/%d", g)); !errors.Is(err, fs.ErrNotExist) {
		if statPPid(t, g) == os.Getpid() {
			t.Errorf("orphan %d is still our child (zombie?)", g)
		}
	}
}

// statPPid reads the parent pid from /proc/<pid>/stat.
func statPPid(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatalf("reading stat of %d: %v", pid, err)
	}
	// The command name may contain spaces; fields restart after ')'.
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	ppid, _ := strconv.Atoi(f[1])
	return ppid
}

func TestConcurrentStarts(t *testing.T) {
	const n = 200
	r := newTestReaper(t)
	procs := make([]*Process, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			p, err := r.Start(shell(i%2 == 0, fmt.Sprintf("exit %d", i)))
			if err != nil {
				t.Errorf("Start %d: %v", i, err)
				return
			}
			procs[i] = p
		})
	}
	wg.Wait()
	t.Cleanup(func() {
		for _, p := range procs {
			if p != nil {
				_ = p.Signal(syscall.SIGKILL)
				_ = p.Close()
			}
		}
	})
	timeout := time.After(30 * time.Second)
	for i, p := range procs {
		if p == nil {
			continue
		}
		select {
		case <-p.Done():
		case <-timeout:
			t.Fatalf("process %d (pid %d) not reaped", i, p.Pid())
		}
		if got, want := p.Status(), (ExitStatus{Code: i}); got != want {
			t.Errorf("process %d: status %+v, want %+v", i, got, want)
		}
	}
}

func countFDs(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(ents)
}

func TestStartFailures(t *testing.T) {
	file := filepath.Join(t.TempDir(), "plain")
	if err := os.WriteFile(file, []byte("not a program\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		opts Options
		want error
	}{
		{"missing dir", Options{Path: "/bin/true", Dir: "/nonexistent/dir"}, fs.ErrNotExist},
		{"dir is a file", Options{Path: "/bin/true", Dir: file}, unix.ENOTDIR},
		{"missing program", Options{Path: "/nonexistent/prog"}, unix.ENOENT},
		{"not executable", Options{Path: file}, unix.EACCES},
		{"empty path", Options{}, nil},
	}
	r := newTestReaper(t)
	for _, tt := range tests {
		for _, tty := range []mode{onTerminal, onPipes} {
			t.Run(tt.name+"/"+tty.String(), func(t *testing.T) {
				opts := tt.opts
				opts.TTY = bool(tty)
				// First run: lets the runtime open whatever it opens once.
				_, _ = r.Start(opts)
				fds, gs := countFDs(t), runtime.NumGoroutine()
				for range 5 {
					p, err := r.Start(opts)
					if err == nil {
						_ = p.Signal(syscall.SIGKILL)
						_ = p.Close()
						t.Fatalf("Start succeeded")
					}
					if tt.want != nil && !errors.Is(err, tt.want) {
						t.Errorf("error %v, want %v", err, tt.want)
					}
					if want := fmt.Sprintf("starting %q: ", opts.Path); !strings.HasPrefix(err.Error(), want) {
						t.Errorf("error %q does not start with %q", err, want)
					}
				}
				if got := countFDs(t); got != fds {
					t.Errorf("open fds %d -> %d", fds, got)
				}
				if got := runtime.NumGoroutine(); got > gs {
					t.Errorf("goroutines %d -> %d", gs, got)
				}
			})
		}
	}
}

func TestReaperClose(t *testing.T) {
	r, err := NewReaper()
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := r.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	select {
	case <-r.stopped:
	default:
		t.Fatal("reaping goroutine still running after Close")
	}
	p, err := r.Start(helper(onPipes, "exit", "0", "x"))
	if !errors.Is(err, errReaperClosed) {
		if p != nil {
			_ = p.Signal(syscall.SIGKILL)
			_ = p.Close()
		}
		t.Errorf("Start after Close = %v, want reaper closed", err)
	}
}

// TestCloseInputFullQueue: with the terminal's input queue full, CloseInput
// gives up after the Reaper's EOFWriteTimeout instead of blocking.
func TestCloseInputFullQueue(t *testing.T) {
	r := newTestReaper(t)
	r.EOFWriteTimeout = 50 * time.Millisecond
	p := start(t, r, helper(onTerminal, "sleep"))
	// Nothing reads: fill the queue until a write blocks.
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if err := p.WriteInput(ctx, bytes.Repeat([]byte("x\n"), 1<<19)); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("WriteInput into a full queue = %v, want DeadlineExceeded", err)
	}
	t0 := time.Now()
	if err := p.CloseInput(); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("CloseInput with a full queue = %v, want DeadlineExceeded", err)
	}
	if d := time.Since(t0); d > time.Second {
		t.Errorf("CloseInput took %v with EOFWriteTimeout 50ms", d)
	}
}
