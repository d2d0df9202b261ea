//go:build unix

package httpserve

import (
	"net"
	"syscall"

	"golang.org/x/sys/unix"
)

// hasData reports whether bytes from the client wait to be read on c,
// without reading them or waiting.
func hasData(c net.Conn) bool {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return false
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	var n int
	var buf [1]byte
	_ = rc.Read(func(fd uintptr) bool {
		n, _, _ = unix.Recvfrom(int(fd), buf[:], unix.MSG_PEEK|unix.MSG_DONTWAIT)
		return true // never wait
	})
	return n > 0
}

// fdLimit is the process's soft descriptor limit (RLIMIT_NOFILE), which
// the Go runtime raised to the hard one at start; 0 if unknown.
func fdLimit() int {
	var l unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &l); err != nil || l.Cur > 1<<30 {
		return 0
	}
	return int(l.Cur)
}
