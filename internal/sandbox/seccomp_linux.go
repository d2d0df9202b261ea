package sandbox

import (
	"fmt"
	"slices"
	"unsafe"

	"golang.org/x/sys/unix"
)

// callsDenied are refused, by number, with their names for the report:
// the calls every architecture has, and its own (archDenied).
var callsDenied = merge(archDenied, map[uint32]string{
	unix.SYS_PTRACE: "ptrace", unix.SYS_PROCESS_VM_READV: "process_vm_readv",
	unix.SYS_PROCESS_VM_WRITEV: "process_vm_writev", unix.SYS_PIDFD_GETFD: "pidfd_getfd", unix.SYS_MOUNT: "mount",
	unix.SYS_UMOUNT2: "umount2", unix.SYS_PIVOT_ROOT: "pivot_root", unix.SYS_CHROOT: "chroot",
	unix.SYS_MOVE_MOUNT: "move_mount", unix.SYS_OPEN_TREE: "open_tree", unix.SYS_FSOPEN: "fsopen",
	unix.SYS_FSCONFIG: "fsconfig", unix.SYS_FSMOUNT: "fsmount", unix.SYS_FSPICK: "fspick",
	unix.SYS_MOUNT_SETATTR: "mount_setattr", unix.SYS_UNSHARE: "unshare", unix.SYS_SETNS: "setns",
	unix.SYS_IO_URING_SETUP: "io_uring_setup", unix.SYS_IO_URING_ENTER: "io_uring_enter",
	unix.SYS_IO_URING_REGISTER: "io_uring_register", unix.SYS_BPF: "bpf", unix.SYS_PERF_EVENT_OPEN: "perf_event_open",
	unix.SYS_KEXEC_LOAD: "kexec_load", unix.SYS_KEXEC_FILE_LOAD: "kexec_file_load", unix.SYS_INIT_MODULE: "init_module",
	unix.SYS_FINIT_MODULE: "finit_module", unix.SYS_DELETE_MODULE: "delete_module", unix.SYS_USERFAULTFD: "userfaultfd",
	unix.SYS_OPEN_BY_HANDLE_AT: "open_by_handle_at", unix.SYS_KEYCTL: "keyctl", unix.SYS_ADD_KEY: "add_key",
	unix.SYS_REQUEST_KEY: "request_key", unix.SYS_SWAPON: "swapon", unix.SYS_SWAPOFF: "swapoff",
	unix.SYS_REBOOT: "reboot", unix.SYS_ACCT: "acct", unix.SYS_SETTIMEOFDAY: "settimeofday",
	unix.SYS_CLOCK_SETTIME: "clock_settime", unix.SYS_SETHOSTNAME: "sethostname", unix.SYS_SETDOMAINNAME: "setdomainname",
	unix.SYS_QUOTACTL: "quotactl",
})

func merge(a, b map[uint32]string) map[uint32]string {
	m := make(map[uint32]string, len(a)+len(b))
	for k, v := range a {
		m[k] = v
	}
	for k, v := range b {
		m[k] = v
	}
	return m
}

// pathCall is a system call that writes: the op it reports and where its
// paths are.
type pathCall struct {
	op    string
	paths []pathArg
}

// pathArg locates one path of a call: the argument holding a directory
// descriptor (-1: the working directory) and the one holding the path
// (-1: the call names the descriptor itself, as fchmod does).
type pathArg struct{ dir, name int }

func at(pairs ...int) []pathArg {
	var a []pathArg
	for i := 0; i+1 < len(pairs); i += 2 {
		a = append(a, pathArg{pairs[i], pairs[i+1]})
	}
	return a
}

func fdArg(i int) []pathArg { return []pathArg{{dir: i, name: -1}} }

// Filter results.
const (
	retAllow  = unix.SECCOMP_RET_ALLOW
	retNotify = unix.SECCOMP_RET_USER_NOTIF
	retKill   = unix.SECCOMP_RET_KILL_PROCESS
)

func retErrno(e unix.Errno) uint32 { return unix.SECCOMP_RET_ERRNO | uint32(e) }

// Open flags that make an open a write; an open without them only reads.
const openWrite = unix.O_WRONLY | unix.O_RDWR | unix.O_CREAT | unix.O_TRUNC

// newNamespaces are clone's flags that make a namespace.
const newNamespaces = unix.CLONE_NEWNS | unix.CLONE_NEWCGROUP | unix.CLONE_NEWUTS | unix.CLONE_NEWIPC |
	unix.CLONE_NEWUSER | unix.CLONE_NEWPID | unix.CLONE_NEWNET

// Offsets in struct seccomp_data.
const (
	offNr   = 0
	offArch = 4
)

func offArg(i int) uint32 { return 16 + 8*uint32(i) } // the low 32 bits, little-endian

// program assembles a filter whose jumps go forward to labels: the
// shared returns and the argument checks at its end. The whole program
// stays under 256 instructions, so every jump fits its 8 bits.
type program struct {
	code   []unix.SockFilter
	labels map[string]int // label -> instruction index
	fixups []fixup
}

// fixup is a jump whose branches go to labels ("" is the next
// instruction).
type fixup struct {
	at     int
	jt, jf string
}

func (p *program) stmt(code uint16, k uint32) {
	p.code = append(p.code, unix.SockFilter{Code: code, K: k})
}

func (p *program) jump(code uint16, k uint32, jt, jf string) {
	p.fixups = append(p.fixups, fixup{len(p.code), jt, jf})
	p.code = append(p.code, unix.SockFilter{Code: code, K: k})
}

func (p *program) label(name string) {
	if p.labels == nil {
		p.labels = map[string]int{}
	}
	p.labels[name] = len(p.code)
}

func (p *program) ret(action uint32) string {
	name := fmt.Sprintf("ret %#x", action)
	if _, ok := p.labels[name]; !ok {
		p.label(name)
		p.stmt(unix.BPF_RET|unix.BPF_K, action)
	}
	return name
}

// resolve points the jumps at their labels.
func (p *program) resolve() []unix.SockFilter {
	off := func(at int, label string) uint8 {
		if label == "" {
			return 0
		}
		return uint8(p.labels[label] - at - 1)
	}
	for _, f := range p.fixups {
		p.code[f.at].Jt, p.code[f.at].Jf = off(f.at, f.jt), off(f.at, f.jf)
	}
	return p.code
}

// tree emits a binary search over the sorted call numbers: a call
// reaches its handler's label in a few comparisons, and one not listed
// is allowed. (The kernel also runs the filter for every call number
// when it installs it, to cache the calls always allowed: a chain of
// comparisons made that the most of a confined start.)
func (p *program) tree(nrs []uint32, to map[uint32]string) {
	if len(nrs) <= 3 {
		for _, nr := range nrs {
			p.jump(unix.BPF_JMP|unix.BPF_JEQ|unix.BPF_K, nr, to[nr], "")
		}
		p.stmt(unix.BPF_RET|unix.BPF_K, retAllow)
		return
	}
	mid := len(nrs) / 2
	right := fmt.Sprintf("nr>=%d", nrs[mid])
	p.jump(unix.BPF_JMP|unix.BPF_JGE|unix.BPF_K, nrs[mid], right, "")
	p.tree(nrs[:mid], to)
	p.label(right)
	p.tree(nrs[mid:], to)
}

// argCheck is a call decided by one of its arguments: match when the
// argument, tested with test (BPF_JSET or BPF_JEQ) against k, is true.
type argCheck struct {
	arg          int
	test         uint16
	k            uint32
	match, other uint32
}

// buildFilter is the seccomp program for policy p: containment calls
// and writes go to the server (which refuses the first and lets Landlock
// have its say on the second), clone3 and openat2 answer ENOSYS (their
// flags are out of the filter's sight; libraries fall back to clone and
// openat), and with the network off, sockets other than AF_UNIX go to the
// server, which refuses them; with a host list, the server sees them and
// every connect and addressed send, to name what the jail refuses.
func buildFilter(p *Policy) []unix.SockFilter {
	to := map[uint32]string{}
	var f program
	actions := map[uint32]uint32{sysClone3: retErrno(unix.ENOSYS), sysOpenat2: retErrno(unix.ENOSYS)}
	for nr := range callsDenied {
		actions[nr] = retNotify
	}
	for nr := range callsWrite {
		actions[nr] = retNotify
	}
	checks := map[uint32]argCheck{
		sysOpenat: {2, unix.BPF_JSET, openWrite, retNotify, retAllow},
		sysClone:  {0, unix.BPF_JSET, newNamespaces, retNotify, retAllow},
		sysIoctl:  {1, unix.BPF_JEQ, unix.TIOCSTI, retErrno(unix.EPERM), retAllow},
	}
	if sysOpen != ^uint32(0) {
		checks[sysOpen] = argCheck{1, unix.BPF_JSET, openWrite, retNotify, retAllow}
	}
	if p.Network == NetworkOff || p.Network == NetworkHosts {
		checks[sysSocket] = argCheck{0, unix.BPF_JEQ, unix.AF_UNIX, retAllow, retNotify}
	}
	if p.Network == NetworkHosts {
		// The jail has no route out but its loopback: the kernel refuses
		// the rest, and the server names what it refuses (notify_linux.go):
		// sockets that are neither Unix nor Internet ones, connects and
		// sends with an address.
		actions[sysConnect] = retNotify
		checks[sysSendto] = argCheck{4, unix.BPF_JEQ, 0, retAllow, retNotify}
	}
	var nrs []uint32
	for nr, a := range actions {
		to[nr] = fmt.Sprintf("ret %#x", a)
		nrs = append(nrs, nr)
	}
	for nr := range checks {
		to[nr] = fmt.Sprintf("check %d", nr)
		nrs = append(nrs, nr)
	}
	slices.Sort(nrs)
	f.stmt(unix.BPF_LD|unix.BPF_W|unix.BPF_ABS, offArch)
	f.jump(unix.BPF_JMP|unix.BPF_JEQ|unix.BPF_K, auditArch, "", "ret-kill")
	f.stmt(unix.BPF_LD|unix.BPF_W|unix.BPF_ABS, offNr)
	f.jump(unix.BPF_JMP|unix.BPF_JGE|unix.BPF_K, x32Bit, fmt.Sprintf("ret %#x", retErrno(unix.EPERM)), "")
	f.tree(nrs, to)
	for _, nr := range sortedKeys(checks) {
		c := checks[nr]
		f.label(fmt.Sprintf("check %d", nr))
		f.stmt(unix.BPF_LD|unix.BPF_W|unix.BPF_ABS, offArg(c.arg))
		f.jump(unix.BPF_JMP|c.test|unix.BPF_K, c.k, fmt.Sprintf("ret %#x", c.match), fmt.Sprintf("ret %#x", c.other))
	}
	f.label("ret-kill")
	f.stmt(unix.BPF_RET|unix.BPF_K, retKill)
	for _, a := range []uint32{retAllow, retNotify, retErrno(unix.EPERM), retErrno(unix.ENOSYS)} {
		f.ret(a)
	}
	return f.resolve()
}

func sortedKeys[V any](m map[uint32]V) []uint32 {
	keys := make([]uint32, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// installFilter sets no_new_privs and installs filter on the calling
// thread only (no TSYNC); it returns the notification listener.
func installFilter(filter []unix.SockFilter) (int, error) {
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return -1, fmt.Errorf("setting no_new_privs: %w", err)
	}
	prog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	fd, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER,
		unix.SECCOMP_FILTER_FLAG_NEW_LISTENER, uintptr(unsafe.Pointer(&prog)))
	if errno != 0 {
		return -1, fmt.Errorf("installing seccomp filter: %w", errno)
	}
	return int(fd), nil
}
