package netjail

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/yieldshell/yieldshell/internal/netproxy"
	"github.com/yieldshell/yieldshell/internal/poll"
	"github.com/yieldshell/yieldshell/internal/sandbox"
)

// TestJailConfinesTheCommand: with Confine, the helper applies the
// command's Landlock ruleset, no_new_privs and seccomp filter to the
// thread that execs it, after the network is set up, and the server's
// Monitor names what the kernel refused: the command writes its root and
// nothing else, cannot make namespaces of its own, and still reaches a
// listed host through the proxy.
func TestJailConfinesTheCommand(t *testing.T) {
	if gaps := sandbox.Probe().Gaps(); len(gaps) > 0 {
		t.Skipf("this kernel cannot confine: %v", gaps)
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("sh is not installed")
	}
	w := newWorld(t)
	root, outside := t.TempDir(), t.TempDir()
	for _, d := range []string{root, outside} {
		os.Chmod(d, 0o777) // the throwaway user's run (TestJailAsUser) writes here too
	}
	exe, _ := os.Executable()
	script := `echo ok > "$1/in"; echo pwn > "$2/x"; unshare -n true && echo UNSHARED; "$3" __probe "$4"; echo done`
	probe := "http:http://listed.test:" + strconv.Itoa(w.upstream) + "/"
	p := &sandbox.Policy{Mode: sandbox.ModeWorkspaceWrite, Network: sandbox.NetworkHosts, Writable: []string{root}}
	out, _, denied := w.runConfined(t, p, sh, "sh", "-c", script, "sh", root, outside, exe, probe)
	if !strings.Contains(out, probe+" ok hello from upstream") || strings.Contains(out, "UNSHARED") || !strings.HasSuffix(out, "done\n") {
		t.Errorf("output %q: want the listed host reached, no namespace made", out)
	}
	if _, err := os.Stat(filepath.Join(root, "in")); err != nil {
		t.Errorf("the root was not written: %v", err)
	}
	if _, err := os.Stat(filepath.Join(outside, "x")); err == nil {
		t.Error("a file outside the root was written")
	}
	var named []string
	for _, d := range denied {
		named = append(named, strings.TrimSpace(d.Op+" "+d.Path))
	}
	for _, want := range []string{"open " + filepath.Join(outside, "x"), "unshare"} {
		if !slices.Contains(named, want) {
			t.Errorf("denied %q, want %q among them", named, want)
		}
	}
}

// TestJailClosedBeforeServeFailsClosed: when the server gives up on the
// helper (Serve's ctx ended) and closes the jail, a confined command that
// runs anyway neither hangs on its first notified call nor gets past it:
// the seccomp listener in flight is gone with the socket, so the call
// fails. (Given up on earlier, the
// helper cannot hand over and does not run the command at all.)
func TestJailClosedBeforeServeFailsClosed(t *testing.T) {
	if gaps := sandbox.Probe().Gaps(); len(gaps) > 0 {
		t.Skipf("this kernel cannot confine: %v", gaps)
	}
	j, err := New(netproxy.New(netproxy.Config{}))
	if err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	j.Confine(&sandbox.Policy{Mode: sandbox.ModeWorkspaceWrite, Network: sandbox.NetworkHosts, Writable: []string{t.TempDir()}}, sandbox.Probe(), "")
	exe, _ := os.Executable()
	var out bytes.Buffer
	cmd := j.command(exe, "/bin/sh", []string{"sh", "-c", `echo pwn > "$1/x"; echo "write $?"`, "sh", outside})
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// As Serve does, up to the seccomp listener, which is left in flight
	// (the helper has sent it: the socket is readable) when the jail is
	// closed.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ln, err := j.handOver(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ln.Close()
	rc, err := j.server.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	poll.Until(t, 20*time.Second, "the helper to send its seccomp listener", func() bool {
		n := 0
		rc.Control(func(fd uintptr) { n, _ = unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, 0) })
		return n == 1
	})
	j.Close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("the command hung: %q", out.String())
	}
	if _, err := os.Stat(filepath.Join(outside, "x")); err == nil {
		t.Error("a file outside the root was written")
	}
	if !strings.Contains(out.String(), "write ") || strings.Contains(out.String(), "write 0") {
		t.Errorf("output %q: want the write refused", out.String())
	}
}
