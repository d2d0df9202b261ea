//go:build unix

package proc

import (
	"io/fs"
	"slices"
	"syscall"
)

// readFile reads the /proc file at p whole, into buf when it fits (a
// larger one gets a buffer of its own). It is os.ReadFile without what
// a /proc file does not need and every read of one paid for: os.Open
// offers each descriptor to the runtime's poller, which refuses it, at
// five system calls of setting and undoing that (Linux), and ReadFile
// asks for the size (zero for these files). Here it is open, read until
// the end, close: a stat file costs a third less than it did.
func readFile(p string, buf []byte) ([]byte, error) {
	fd, err := open(p)
	if err != nil {
		return nil, err
	}
	defer syscall.Close(fd)
	b := buf[:0]
	for {
		if len(b) == cap(b) {
			b = slices.Grow(b, max(cap(b), 512))
		}
		n, err := read(fd, b[len(b):cap(b)])
		if err != nil {
			return nil, &fs.PathError{Op: "read", Path: p, Err: err}
		}
		if n == 0 {
			return b, nil
		}
		b = b[:len(b)+n]
	}
}

// readOnce reads the file at p with a single read(2) into buf.
func readOnce(p string, buf []byte) (int, error) {
	fd, err := open(p)
	if err != nil {
		return 0, err
	}
	defer syscall.Close(fd)
	n, err := read(fd, buf)
	if err != nil {
		return 0, &fs.PathError{Op: "read", Path: p, Err: err}
	}
	return n, nil
}

func open(p string) (int, error) {
	for {
		fd, err := syscall.Open(p, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if err != syscall.EINTR {
			if err != nil {
				return -1, &fs.PathError{Op: "open", Path: p, Err: err}
			}
			return fd, nil
		}
	}
}

func read(fd int, b []byte) (int, error) {
	for {
		n, err := syscall.Read(fd, b)
		if err != syscall.EINTR {
			return max(n, 0), err
		}
	}
}
