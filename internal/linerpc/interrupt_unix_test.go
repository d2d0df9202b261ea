//go:build unix

package linerpc

import (
	"context"
	"io"
	"net"
	"os"
	"testing"
	"time"

	cpty "github.com/creack/pty"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"golang.org/x/sys/unix"
)

// TestCloseEndsABlockedRead: whatever the reader is (stdin as clients
// hand it over is a pipe in blocking mode; the persistent server's is a
// socket; a person's is a terminal), a message written to it is read, and
// Close ends a Read waiting for the next, which reports EOF.
func TestCloseEndsABlockedRead(t *testing.T) {
	for _, tc := range []struct {
		name   string
		direct bool // read in the SDK's goroutine, not read ahead
		open   func(t *testing.T) (r io.ReadCloser, w io.WriteCloser)
	}{
		{"pipe in blocking mode", true, func(t *testing.T) (io.ReadCloser, io.WriteCloser) {
			var fds [2]int
			if err := unix.Pipe(fds[:]); err != nil {
				t.Fatal(err)
			}
			return blockingFile(t, fds[0], "pipe"), os.NewFile(uintptr(fds[1]), "pipe")
		}},
		{"socket in blocking mode", true, func(t *testing.T) (io.ReadCloser, io.WriteCloser) {
			fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
			if err != nil {
				t.Fatal(err)
			}
			return blockingFile(t, fds[0], "socket"), os.NewFile(uintptr(fds[1]), "socket")
		}},
		{"os pipe", true, func(t *testing.T) (io.ReadCloser, io.WriteCloser) {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			return r, w
		}},
		{"io pipe", true, func(t *testing.T) (io.ReadCloser, io.WriteCloser) { return io.Pipe() }},
		{"net pipe", true, func(t *testing.T) (io.ReadCloser, io.WriteCloser) { a, b := net.Pipe(); return a, b }},
		{"another reader", false, func(t *testing.T) (io.ReadCloser, io.WriteCloser) {
			r, w := io.Pipe()
			return struct{ io.ReadCloser }{r}, w
		}},
		{"terminal in blocking mode", false, func(t *testing.T) (io.ReadCloser, io.WriteCloser) {
			master, slave, err := cpty.Open()
			if err != nil {
				t.Skip("no terminal:", err)
			}
			fd, err := unix.Open(slave.Name(), unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
			_ = slave.Close()
			if err != nil {
				t.Fatal(err)
			}
			return blockingFile(t, fd, slave.Name()), master
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, w := tc.open(t)
			t.Cleanup(func() { _ = w.Close(); _ = r.Close() })
			c, err := (&Transport{Reader: r, Writer: nopWriteCloser{io.Discard}}).Connect(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if direct := c.(*conn).lines == nil; direct != tc.direct {
				t.Errorf("read in the SDK's goroutine: %v, want %v", direct, tc.direct)
			}
			go func() { _, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n") }()
			msg, err := c.Read(context.Background())
			if req, ok := msg.(*jsonrpc.Request); err != nil || !ok || req.Method != "ping" {
				t.Fatalf("Read: %#v, %v", msg, err)
			}
			done := make(chan error, 1)
			go func() { _, err := c.Read(context.Background()); done <- err }()
			_ = c.Close()
			select {
			case err := <-done:
				if err != io.EOF {
					t.Errorf("Read after Close: %v, want EOF", err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("Close did not end the blocked Read within 10 s")
			}
		})
	}
}

// blockingFile is fd as an *os.File the runtime does not poll, as stdin
// is when a client starts the server.
func blockingFile(t *testing.T, fd int, name string) *os.File {
	t.Helper()
	f := os.NewFile(uintptr(fd), name)
	if f.SetReadDeadline(time.Time{}) == nil {
		t.Fatalf("%s: the runtime polls it", name)
	}
	return f
}
