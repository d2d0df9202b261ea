package daemon

import (
	"fmt"

	"github.com/yieldshell/yieldshell/internal/proc"
	"golang.org/x/sys/unix"
)

// peerCred is the uid and pid of the process at the other end of a Unix
// socket (SO_PEERCRED: as it was when it connected).
func peerCred(fd int) (uint32, int, error) {
	cred, err := unix.GetsockoptUcred(fd, unix.SOL_SOCKET, unix.SO_PEERCRED)
	if err != nil {
		return 0, 0, err
	}
	return cred.Uid, int(cred.Pid), nil
}

// checkConfined refuses a peer that runs in a sandbox (no_new_privs and
// seccomp filters, as yieldshell's leaves a command): through this server
// it could run commands outside its sandbox. Landlock cannot fence a
// pathname socket before ABI 9, so the server asks the kernel who calls.
func checkConfined(pid int) error {
	st, err := proc.ReadStatus(pid)
	if err != nil {
		return fmt.Errorf("reading the peer's status: %w", err)
	}
	if st.Confined() {
		return fmt.Errorf("refusing a connection from pid %d: it runs in a sandbox (no_new_privs and seccomp), and this server runs commands outside it", pid)
	}
	return nil
}
