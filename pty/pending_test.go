//go:build unix

package pty

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/yieldshell/yieldshell/internal/poll"
)

// Output a program wrote is pending from the moment its write returns until
// the reader that took it from the terminal calls Read again (it has handed
// the bytes on): neither the terminal's own queue, which the line
// discipline fills asynchronously from the program's writes, nor the
// reader's hands are a gap in which the output is nowhere to be seen.
// Without that, a program seen blocked reading may still have its prompt
// on the way (issue 15, the race).
func TestPendingCoversQueueAndReader(t *testing.T) {
	var closed atomic.Bool
	term, err := openTerminal(80, 24, &closed)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		closed.Store(true)
		term.closeChild()
		_ = term.close()
	})
	out := term.stdout()
	buf := make([]byte, 64)
	for i := range 500 {
		if _, err := term.slave.Write([]byte{'x'}); err != nil {
			t.Fatal(err)
		}
		// The program's write has returned: its byte is pending, even
		// before the line discipline has queued it for the master.
		if !term.pending() {
			t.Fatalf("write %d: the byte just written is not pending", i)
		}
		if n, err := out.Read(buf); n == 0 || err != nil {
			t.Fatalf("read %d: %d, %v", i, n, err)
		}
		// The reader holds it until it asks for more.
		if !term.pending() {
			t.Fatalf("read %d: the byte the reader holds is not pending", i)
		}
	}
	// Asking for more hands the last bytes on: nothing is pending while the
	// reader waits.
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = out.Read(buf)
	}()
	poll.Until(t, 5*time.Second, "nothing pending while the reader waits for more", func() bool { return !term.pending() })
	if _, err := term.slave.Write([]byte{'y'}); err != nil {
		t.Fatal(err)
	}
	<-done
}
