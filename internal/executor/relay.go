//go:build unix

package executor

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"syscall"

	"golang.org/x/sys/unix"
)

// relay is the local end of a connection to an executor: it connects to
// the server's socket sock, makes it its standard input and output, and
// becomes argv (ssh). The server starts it under a terminal of its own,
// so that ssh's questions (a host key, a password) are asked there, as
// any program's are, while the protocol goes over the socket.
func relay(sock string, argv []string) error {
	if len(argv) == 0 {
		return errors.New("relay: no command")
	}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return fmt.Errorf("relay: %w", err)
	}
	c, err := net.Dial("unix", sock)
	if err != nil {
		return fmt.Errorf("relay: connecting: %w", err)
	}
	f, err := c.(*net.UnixConn).File()
	if err != nil {
		return fmt.Errorf("relay: %w", err)
	}
	for _, fd := range []int{0, 1} {
		if err := unix.Dup2(int(f.Fd()), fd); err != nil {
			return fmt.Errorf("relay: %w", err)
		}
	}
	return syscall.Exec(path, argv, os.Environ())
}
