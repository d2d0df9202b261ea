//go:build !unix

package proc

import (
	"io"
	"os"
)

// readFile reads the file at p whole (there is no /proc here: every read
// fails, and callers fall back).
func readFile(p string, _ []byte) ([]byte, error) { return os.ReadFile(p) }

// readOnce reads the file at p with a single read into buf.
func readOnce(p string, buf []byte) (int, error) {
	f, err := os.Open(p)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	n, err := f.Read(buf)
	if err == io.EOF {
		err = nil
	}
	return n, err
}
