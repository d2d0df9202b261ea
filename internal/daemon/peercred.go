//go:build unix

package daemon

import (
	"fmt"
	"net"
)

// checkPeer admits a connection only from the uid the server runs as:
// the socket's mode already keeps other users out, and this holds even
// where a socket's permissions are not enforced for connect.
func checkPeer(peer, self uint32) error {
	if peer != self {
		return fmt.Errorf("refusing a connection from uid %d: only uid %d may use this server", peer, self)
	}
	return nil
}

// admitPeer reads the connecting process's uid from the kernel and checks it.
func admitPeer(c *net.UnixConn, self uint32) error {
	raw, err := c.SyscallConn()
	if err != nil {
		return fmt.Errorf("reading peer credentials: %w", err)
	}
	var uid uint32
	var pid int
	var cerr error
	if err := raw.Control(func(fd uintptr) { uid, pid, cerr = peerCred(int(fd)) }); err != nil {
		return fmt.Errorf("reading peer credentials: %w", err)
	}
	if cerr != nil {
		return fmt.Errorf("reading peer credentials: %w", cerr)
	}
	if err := checkPeer(uid, self); err != nil {
		return err
	}
	return checkConfined(pid)
}
