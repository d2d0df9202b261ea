package sandbox

import (
	"encoding/binary"
	"errors"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"unsafe"

	"github.com/yieldshell/yieldshell/internal/proc"
	"golang.org/x/sys/unix"
)

// notif and notifResp are struct seccomp_notif and seccomp_notif_resp.
type notif struct {
	id    uint64
	pid   uint32
	flags uint32
	nr    int32
	arch  uint32
	ip    uint64
	args  [6]uint64
}

type notifResp struct {
	id    uint64
	val   int64
	errno int32
	flags uint32
}

// Monitor answers a confined command's notifications and records its
// denials. Close stops it; a notification sent after that fails with
// ENOSYS, so the call is still refused.
type Monitor struct {
	policy  *Policy
	file    *os.File
	denied  denials
	done    chan struct{}
	closing sync.Once
}

func newMonitor(p *Policy, listener int) (*Monitor, error) {
	if err := unix.SetNonblock(listener, true); err != nil {
		unix.Close(listener)
		return nil, err
	}
	m := &Monitor{policy: p, file: os.NewFile(uintptr(listener), "seccomp-listener"), done: make(chan struct{})}
	go m.run()
	return m, nil
}

// Denied returns the denials so far, in the order they first happened.
func (m *Monitor) Denied() []Denial {
	if m == nil {
		return nil
	}
	return m.denied.snapshot()
}

// Close stops answering and waits for the goroutine.
func (m *Monitor) Close() error {
	if m == nil {
		return nil
	}
	m.closing.Do(func() { _ = m.file.Close() })
	<-m.done
	return nil
}

// run receives notifications until the listener is closed or every
// process under the filter is gone.
func (m *Monitor) run() {
	defer close(m.done)
	rc, err := m.file.SyscallConn()
	if err != nil {
		return
	}
	for {
		var n notif
		gone := false
		err := rc.Read(func(fd uintptr) bool {
			pfd := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
			if k, _ := unix.Poll(pfd, 0); k == 0 {
				return false // the poller wakes us
			}
			if pfd[0].Revents&unix.POLLIN == 0 {
				gone = true // POLLHUP: no process uses the filter any more
				return true
			}
			// A notification withdrawn since the poll (its process
			// killed) makes RECV answer ENOENT, not wait.
			_, _, errno := unix.Syscall(unix.SYS_IOCTL, fd, unix.SECCOMP_IOCTL_NOTIF_RECV, uintptr(unsafe.Pointer(&n)))
			if errno != 0 {
				n.id = 0
			}
			return true
		})
		if err != nil || gone {
			return
		}
		if n.id != 0 {
			m.answer(rc, &n)
		}
	}
}

// answer decides one notification and sends the verdict.
func (m *Monitor) answer(rc syscall.RawConn, n *notif) {
	resp := notifResp{id: n.id}
	if errno := m.decide(n); errno != 0 {
		resp.errno = -int32(errno)
	} else {
		resp.flags = unix.SECCOMP_USER_NOTIF_FLAG_CONTINUE
	}
	_ = rc.Control(func(fd uintptr) {
		_, _, _ = unix.Syscall(unix.SYS_IOCTL, fd, unix.SECCOMP_IOCTL_NOTIF_SEND, uintptr(unsafe.Pointer(&resp)))
	})
}

// decide returns the errno that refuses n, or 0 to let it proceed (Landlock
// still enforces what it covers). Every refusal is recorded.
func (m *Monitor) decide(n *notif) unix.Errno {
	nr := uint32(n.nr)
	if name, ok := callsDenied[nr]; ok {
		m.denied.add(name, "", "")
		return unix.EPERM
	}
	switch nr {
	case sysSocket:
		if m.policy.Network == NetworkHosts && jailSocket(n.args[0], n.args[1]) {
			return 0
		}
		m.denied.add("socket", "", socketName(n.args[0], n.args[1]))
		return unix.EACCES
	case sysConnect:
		return m.checkDestination(n, "connect", n.args[1], n.args[2])
	case sysSendto:
		return m.checkDestination(n, "send", n.args[4], n.args[5])
	case sysClone:
		m.denied.add("clone", "", "new namespace")
		return unix.EPERM
	case sysOpenat:
		return m.checkPaths(n, "open", []pathArg{{0, 1}})
	case sysOpen:
		return m.checkPaths(n, "open", []pathArg{{-1, 0}})
	}
	if c, ok := callsWrite[nr]; ok {
		return m.checkPaths(n, c.op, c.paths)
	}
	return 0
}

// checkPaths refuses a write when one of its paths is not allowed:
// EACCES, as Landlock answers, or EPERM for what Landlock does not cover.
func (m *Monitor) checkPaths(n *notif, op string, args []pathArg) unix.Errno {
	metadata := op == "chmod" || op == "chown" || op == "setxattr" || op == "removexattr" || op == "utime"
	for i, a := range args {
		path, ok := resolve(int(n.pid), n.args, a)
		switch {
		case !ok && metadata:
			path = "(unreadable)" // nothing but this check stands in the way: refused
		case !ok || m.policy.allowed(op, path):
			continue // Landlock has its say
		case creates(op) && i == len(args)-1 && exists(path):
			continue // a new name that exists: the kernel answers EEXIST, as it would
		}
		m.denied.add(op, path, "")
		if metadata {
			return unix.EPERM
		}
		return unix.EACCES
	}
	return 0
}

// creates reports whether op makes a new name (and fails on one that
// exists, before any permission check).
func creates(op string) bool {
	return op == "mkdir" || op == "mknod" || op == "symlink" || op == "link"
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// resolve returns the absolute path a call's argument names in process
// pid, with the links of its directory resolved (not its last component,
// which some calls do not follow). ok is false when it cannot be read.
func resolve(pid int, args [6]uint64, a pathArg) (string, bool) {
	name := ""
	if a.name >= 0 {
		if args[a.name] == 0 {
			a.name = -1 // utimensat(fd, NULL, ...) names the descriptor
		} else {
			s, err := readString(pid, uintptr(args[a.name]))
			if err != nil {
				return "", false
			}
			name = s
		}
	}
	base := ""
	switch {
	case strings.HasPrefix(name, "/"):
	case a.dir < 0 || int32(args[a.dir]) == unix.AT_FDCWD:
		base, _ = proc.ReadCwd(pid)
	default:
		base, _ = proc.ReadFDLink(pid, int(int32(args[a.dir])))
	}
	if !strings.HasPrefix(name, "/") && !strings.HasPrefix(base, "/") {
		return "", false
	}
	p := filepath.Join(base, name)
	p = proc.ForProcess(p, pid)
	dir, last := filepath.Split(p)
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	if last == "" {
		return filepath.Clean(dir), true
	}
	full := filepath.Join(dir, last)
	if real, err := filepath.EvalSymlinks(full); err == nil {
		return real, true // an existing file: the call meets what it links to
	}
	return full, true
}

// readString reads a NUL-terminated string (a path) from pid's memory.
func readString(pid int, addr uintptr) (string, error) {
	var b strings.Builder
	for b.Len() < unix.PathMax {
		// Reads stay within one page: the next may not be mapped.
		n := 256 - int(addr%256)
		chunk, err := proc.ReadMem(pid, addr, n)
		if err != nil {
			return "", err
		}
		if i := strings.IndexByte(string(chunk), 0); i >= 0 {
			b.Write(chunk[:i])
			return b.String(), nil
		}
		b.Write(chunk)
		addr += uintptr(n)
	}
	return "", errors.New("path too long")
}

// jailSocket reports whether a host list's jail lets a command make a
// socket of family and typ: Internet stream and datagram sockets (to
// reach the proxy, or the jail's own loopback) and netlink (the jail's
// interfaces, which programs list). Raw and packet sockets are refused.
func jailSocket(family, typ uint64) bool {
	switch family {
	case unix.AF_INET, unix.AF_INET6:
		return typ&0xf == unix.SOCK_STREAM || typ&0xf == unix.SOCK_DGRAM
	case unix.AF_NETLINK:
		return true
	}
	return false
}

// checkDestination names a connect or addressed send (op) of a host
// list's command to an Internet address other than the jail's loopback:
// the jail has no route there (the proxy is the way out), so it is
// refused as the kernel would refuse it, ENETUNREACH, and said where.
func (m *Monitor) checkDestination(n *notif, op string, addr, size uint64) unix.Errno {
	if addr == 0 || size < 2 {
		return 0
	}
	b, err := proc.ReadMem(int(n.pid), uintptr(addr), int(min(size, 28)))
	if err != nil {
		return 0 // the kernel refuses it anyway, unnamed
	}
	ap, ok := sockaddrAddr(b)
	if !ok || ap.Addr().IsLoopback() {
		return 0
	}
	m.denied.addDenial(Denial{Op: op, Host: ap.Addr().String(), Port: int(ap.Port()), Reason: "not through the proxy"})
	return unix.ENETUNREACH
}

// sockaddrAddr reads an AF_INET or AF_INET6 socket address.
func sockaddrAddr(b []byte) (netip.AddrPort, bool) {
	family := binary.NativeEndian.Uint16(b)
	switch {
	case family == unix.AF_INET && len(b) >= 8:
		return netip.AddrPortFrom(netip.AddrFrom4([4]byte(b[4:8])), binary.BigEndian.Uint16(b[2:4])), true
	case family == unix.AF_INET6 && len(b) >= 24:
		return netip.AddrPortFrom(netip.AddrFrom16([16]byte(b[8:24])).Unmap(), binary.BigEndian.Uint16(b[2:4])), true
	}
	return netip.AddrPort{}, false
}

// socketName names a socket family and type, e.g. "AF_INET stream".
func socketName(family, typ uint64) string {
	names := map[uint64]string{unix.AF_INET: "AF_INET", unix.AF_INET6: "AF_INET6", unix.AF_NETLINK: "AF_NETLINK",
		unix.AF_PACKET: "AF_PACKET", unix.AF_VSOCK: "AF_VSOCK", unix.AF_BLUETOOTH: "AF_BLUETOOTH"}
	f, ok := names[family]
	if !ok {
		f = "family " + strconv.FormatUint(family, 10)
	}
	types := map[uint64]string{unix.SOCK_STREAM: "stream", unix.SOCK_DGRAM: "datagram", unix.SOCK_RAW: "raw",
		unix.SOCK_SEQPACKET: "seqpacket"}
	if t, ok := types[typ&0xf]; ok {
		return f + " " + t
	}
	return f
}
