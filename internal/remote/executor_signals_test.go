//go:build unix

package remote

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/yieldshell/yieldshell/internal/execproto"
	"github.com/yieldshell/yieldshell/internal/poll"
)

// TestExecutorOutlivesItsConnection: when ssh goes away, the executor is
// sent SIGHUP and its next write to the connection raises SIGPIPE; it
// lives on through both, whatever program embeds it (here the test binary,
// whose main installs no handler for either), and answers the server's
// next connection on its socket. It once died of the SIGPIPE when output
// was streaming as the connection dropped, and its commands with it
// (TestSSHDropped failed about once in thirty runs under load).
func TestExecutorOutlivesItsConnection(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	const session = "0123456789abcdef"
	cmd := exec.Command(self, "executor", "--session", session, "--dir", dir)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = outW
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	outW.Close()
	exited := make(chan struct{})
	var waitErr error
	go func() { waitErr = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = stdin.Close()
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	})
	hello := &execproto.Msg{ID: 1, Op: execproto.OpHello, Hello: &execproto.Hello{Version: execproto.Version}}
	first := execproto.NewConn(outR, stdin, stdin)
	if err := first.Send(hello); err != nil {
		t.Fatal(err)
	}
	if m, err := first.Recv(); err != nil || !m.Reply || m.Hello == nil {
		t.Fatalf("answer to the first hello: %+v, %v", m, err)
	}
	// The connection goes away: nothing reads the executor's output any
	// more, and the next answer it writes meets a broken pipe.
	outR.Close()
	if err := first.Send(&execproto.Msg{ID: 2, Op: execproto.OpHello, Hello: hello.Hello}); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "run", session+".sock")
	var answered *execproto.Msg
	poll.Until(t, 10*time.Second, "the executor answering on its socket", func() bool {
		select {
		case <-exited:
			t.Fatalf("the executor ended: %v", waitErr)
		default:
		}
		c, err := net.Dial("unix", sock)
		if err != nil {
			return false
		}
		defer c.Close()
		conn := execproto.NewConn(c, c, c)
		if conn.Send(&execproto.Msg{ID: 3, Op: execproto.OpHello, Hello: hello.Hello}) != nil {
			return false
		}
		m, err := conn.Recv()
		answered = m
		return err == nil && m.Reply && m.Hello != nil
	})
	if answered.Err != "" {
		t.Errorf("answer on the socket: %+v", answered)
	}
}
