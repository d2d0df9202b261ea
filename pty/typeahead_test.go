//go:build unix

package pty

import (
	"io"
	"runtime"
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

// In pipe mode, input is typeahead while it waits in the stdin pipe, and
// no longer once the program's end of the pipe has read it all (Linux:
// the count is of the pipe, which the server's end may ask).
func TestPipeTypeaheadUntilRead(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the stdin pipe's count is asked only on Linux")
	}
	var closed, inputClosed atomic.Bool
	p, err := openPipes(&closed, &inputClosed)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		closed.Store(true)
		p.closeChild()
		_ = p.close()
	})
	if p.typeahead() {
		t.Fatal("typeahead before anything was written")
	}
	if _, err := p.in.Write([]byte("one\ntwo\n")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4)
	for _, n := range []int{4, 4} {
		if !p.typeahead() {
			t.Fatal("input still in the pipe is not typeahead")
		}
		if _, err := io.ReadFull(p.ends[0], buf[:n]); err != nil {
			t.Fatal(err)
		}
	}
	if p.typeahead() {
		t.Fatal("typeahead after the program read everything")
	}
	inputClosed.Store(true)
	if p.typeahead() {
		t.Fatal("typeahead after the input was closed")
	}
}
