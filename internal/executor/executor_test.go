//go:build linux

package executor

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/yieldshell/yieldshell/internal/execproto"
	"github.com/yieldshell/yieldshell/internal/poll"
	"github.com/yieldshell/yieldshell/pty"
)

// TestGraceEndsTrees: with no connection for the grace period, the
// executor ends every tree it started (a child that left the session
// too, found by its tag) and Run returns.
func TestGraceEndsTrees(t *testing.T) {
	call, c, done := runExecutor(t, 300*time.Millisecond)
	tag := "YIELDSHELL_TAG=grace-test-" + time.Now().Format("150405.000000")
	pidFile := filepath.Join(t.TempDir(), "pid")
	r := call(&execproto.Msg{ID: 2, Op: execproto.OpStart, Start: &execproto.Start{Path: "/bin/sh",
		Args: []string{"sh", "-c", "setsid sleep 600 & echo $! > " + pidFile + "; sleep 600"}, Env: []string{tag}}})
	if r.Err != "" {
		t.Fatal(r.Err)
	}
	pid := r.Int
	var daemon int
	poll.Until(t, 10*time.Second, "the daemon's pid", func() bool {
		b, _ := os.ReadFile(pidFile)
		daemon, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		return daemon > 0
	})
	_ = c.Close() // the connection drops, and nobody comes back
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("the executor outlived its grace period")
	}
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("the command (pid %d) lives on: %v", pid, err)
	}
	// Reparented to init, which reaps when it gets to it.
	poll.Until(t, 10*time.Second, "the daemon gone", func() bool {
		err := syscall.Kill(daemon, 0)
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", daemon))
		return errors.Is(err, syscall.ESRCH) || strings.Contains(string(b), ") Z ")
	})
}

// TestEscapedKeptThenEnded: a daemon that escaped a command which ended is
// kept through a dropped connection, as the commands are (the executor
// does not end at once for want of processes), and ended with the rest
// once the grace period passes.
func TestEscapedKeptThenEnded(t *testing.T) {
	call, c, done := runExecutor(t, 2*time.Second)
	tag := "YIELDSHELL_TAG=escape-test-" + time.Now().Format("150405.000000")
	pidFile := filepath.Join(t.TempDir(), "pid")
	r := call(&execproto.Msg{ID: 2, Op: execproto.OpStart, Start: &execproto.Start{Path: "/bin/sh",
		Args: []string{"sh", "-c", "setsid sleep 600 & echo $! > " + pidFile}, Env: []string{tag}}})
	if r.Err != "" {
		t.Fatal(r.Err)
	}
	var daemon int
	poll.Until(t, 10*time.Second, "the daemon's pid", func() bool {
		b, _ := os.ReadFile(pidFile)
		daemon, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		return daemon > 0
	})
	t.Cleanup(func() { _ = syscall.Kill(daemon, syscall.SIGKILL) })
	alive := func() bool {
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", daemon))
		return syscall.Kill(daemon, 0) == nil && !strings.Contains(string(b), ") Z ")
	}
	// The command ended: the server closes it, as on any end.
	poll.Until(t, 10*time.Second, "the command's end", func() bool { return syscall.Kill(r.Int, 0) != nil })
	call(&execproto.Msg{ID: 3, Op: execproto.OpClose, Proc: r.Proc})
	_ = c.Close() // the connection drops
	select {
	case <-done:
		t.Fatal("the executor ended at once, with a daemon of its commands still running")
	case <-time.After(500 * time.Millisecond):
	}
	if !alive() {
		t.Fatal("the daemon was ended before the grace period passed")
	}
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("the executor outlived its grace period")
	}
	poll.Until(t, 10*time.Second, "the daemon gone", func() bool { return !alive() })
}

// runExecutor runs an executor with grace on one end of a pipe and says
// hello from the other: call sends a request and returns its answer, c is
// the connection (closing it drops it), done is closed when Run returns.
func runExecutor(t *testing.T, grace time.Duration) (call func(*execproto.Msg) *execproto.Msg, c *execproto.Conn, done chan struct{}) {
	t.Helper()
	reaper, err := pty.NewReaper()
	if err != nil {
		t.Fatal(err)
	}
	e := New(reaper, grace, nil)
	a, b := net.Pipe()
	done = make(chan struct{})
	go func() { defer close(done); e.Run(context.Background(), execproto.NewConn(b, b, b), nil) }()
	c = execproto.NewConn(a, a, a)
	call = func(m *execproto.Msg) *execproto.Msg {
		t.Helper()
		if err := c.Send(m); err != nil {
			t.Fatal(err)
		}
		for {
			r, err := c.Recv()
			if err != nil {
				t.Fatal(err)
			}
			if r.Reply && r.ID == m.ID {
				return r
			}
		}
	}
	call(&execproto.Msg{ID: 1, Op: execproto.OpHello, Hello: &execproto.Hello{Version: execproto.Version}})
	return call, c, done
}
