package linerpc

import (
	"io"
	"net"
	"os"
	"time"
)

// interruptible returns the reader to read r through, and whether closing
// it ends a read blocked on it: then the connection reads in the SDK's
// goroutine, and a message goes from the reader to its handler without
// passing between goroutines. A socket, an in-memory pipe, a file the
// runtime polls and a regular file (whose reads never wait) qualify; a
// pipe or socket on a descriptor in blocking mode (stdin, as a client
// hands it over) is read through a non-blocking copy of the descriptor
// (see [pollable]). Anything else (a terminal) is read ahead by a
// goroutine of the connection's.
func interruptible(r io.ReadCloser) (io.ReadCloser, bool) {
	switch r := r.(type) {
	case net.Conn, *io.PipeReader:
		return r, true
	case *os.File:
		if r.SetReadDeadline(time.Time{}) == nil {
			return r, true // the runtime polls it: Close ends a read
		}
		fi, err := r.Stat()
		if err != nil {
			return r, false
		}
		if fi.Mode().IsRegular() {
			return r, true
		}
		if fi.Mode()&(os.ModeNamedPipe|os.ModeSocket) != 0 {
			if p := pollable(r); p != nil {
				return p, true
			}
		}
	}
	return r, false
}
