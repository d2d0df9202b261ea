package prompt

import (
	"net"
	"slices"
	"testing"

	"golang.org/x/sys/unix"
)

// Listening finds a port the test process listens on, in its own session,
// also when the Prober's copy of the process table was read just before.
func TestListeningFindsOwnPort(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	sid, err := unix.Getsid(0)
	if err != nil {
		t.Fatal(err)
	}
	pr := NewProber()
	pr.members(Input{Session: -1}, 0, 0) // a fresh copy of the table
	port := l.Addr().(*net.TCPAddr).Port
	if got := pr.Listening(sid); !slices.Contains(got, port) {
		t.Errorf("Listening(%d) = %v, want %d among them", sid, got, port)
	}
	if got := pr.Listening(1 << 30); got != nil {
		t.Errorf("Listening of no session = %v", got)
	}
}
