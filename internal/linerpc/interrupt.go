package linerpc

import (
	"io"
	"net"
	"os"
	"time"
)

// interruptible returns the reader to read r through, a non-blocking copy
// of its descriptor if one was made (the connection closes it with r), and
// whether closing them ends a read blocked on it: then the connection
// reads in the SDK's goroutine, and a message goes from the reader to its
// handler without passing between goroutines. A socket, an in-memory pipe,
// a file the runtime polls and a regular file (whose reads never wait)
// qualify; a pipe or socket on a descriptor in blocking mode (stdin, as a
// client hands it over) is read through a non-blocking copy (see
// [pollable]). Anything else (a terminal) is read ahead by a goroutine of
// the connection's.
func interruptible(r io.ReadCloser) (src io.Reader, copied io.Closer, direct bool) {
	switch f := r.(type) {
	case net.Conn, *io.PipeReader:
		return r, nil, true
	case *os.File:
		if f.SetReadDeadline(time.Time{}) == nil {
			return f, nil, true // the runtime polls it: Close ends a read
		}
		fi, err := f.Stat()
		if err != nil {
			return f, nil, false
		}
		if fi.Mode().IsRegular() {
			return f, nil, true
		}
		if fi.Mode()&(os.ModeNamedPipe|os.ModeSocket) != 0 {
			if p := pollable(f); p != nil {
				return p, p, true
			}
		}
	}
	return r, nil, false
}
