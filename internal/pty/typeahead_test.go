//go:build unix

package pty

import (
	"sync/atomic"
	"testing"

	"golang.org/x/sys/unix"
)

// Input the server wrote is typeahead from the moment the write returns
// until the program reads it, in raw mode byte by byte and in canonical
// mode line by line: a shell that prints its prompt with lines still queued is not done
// with the input (issue 15 item 4).
func TestTypeaheadUntilRead(t *testing.T) {
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
	setCanonical := func(on bool) {
		tio, err := unix.IoctlGetTermios(int(term.slave.Fd()), ioctlGetTermios)
		if err != nil {
			t.Fatal(err)
		}
		if on {
			tio.Lflag |= unix.ICANON
		} else {
			tio.Lflag &^= unix.ICANON
		}
		if err := unix.IoctlSetTermios(int(term.slave.Fd()), ioctlSetTermios, tio); err != nil {
			t.Fatal(err)
		}
	}
	buf := make([]byte, 256)
	for _, canonical := range []bool{false, true} {
		setCanonical(canonical)
		inputs := []string{"echo one\recho two\r", "x", "partial line"}
		if canonical {
			inputs = []string{"echo one\recho two\r", "x\r"}
		}
		for _, in := range inputs {
			if term.typeahead() {
				t.Fatalf("canonical=%v: typeahead before %q was written", canonical, in)
			}
			if _, err := term.master.Write([]byte(in)); err != nil {
				t.Fatal(err)
			}
			if !term.typeahead() {
				t.Fatalf("canonical=%v: %q just written is not typeahead", canonical, in)
			}
			for term.typeahead() {
				if _, err := term.slave.Read(buf); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
}
