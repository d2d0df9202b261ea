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

// program assembles a filter whose jumps go forward to shared returns
// at its end (one instruction per listed call, not two).
type program struct {
	code []unix.SockFilter
	// jumps to patch: instruction index and the result its true and
	// false branches go to (0: the next instruction).
	fixups []fixup
}

type fixup struct {
	at     int
	jt, jf uint32
}

func (p *program) stmt(code uint16, k uint32) {
	p.code = append(p.code, unix.SockFilter{Code: code, K: k})
}

// jump adds a conditional jump whose branches return jt and jf (0: go
// on to the next instruction).
func (p *program) jump(code uint16, k uint32, jt, jf uint32) {
	p.fixups = append(p.fixups, fixup{len(p.code), jt, jf})
	p.code = append(p.code, unix.SockFilter{Code: code, K: k})
}

// onCall returns action for call nr.
func (p *program) onCall(nr, action uint32) {
	p.jump(unix.BPF_JMP|unix.BPF_JEQ|unix.BPF_K, nr, action, 0)
}

// onArg returns match for call nr when its argument arg, tested with
// test (BPF_JSET or BPF_JEQ) against k, is true, and other otherwise.
func (p *program) onArg(nr uint32, arg int, test uint16, k, match, other uint32) {
	p.code = append(p.code, unix.SockFilter{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, K: nr, Jf: 2})
	p.stmt(unix.BPF_LD|unix.BPF_W|unix.BPF_ABS, offArg(arg))
	p.jump(unix.BPF_JMP|test|unix.BPF_K, k, match, other)
	p.stmt(unix.BPF_LD|unix.BPF_W|unix.BPF_ABS, offNr) // not reached: both branches return
}

// finish appends the shared returns (the default, allow, first) and
// points the jumps at them.
func (p *program) finish() []unix.SockFilter {
	var rets []uint32
	for _, f := range p.fixups {
		for _, r := range []uint32{f.jt, f.jf} {
			if r != 0 && !slices.Contains(rets, r) {
				rets = append(rets, r)
			}
		}
	}
	p.stmt(unix.BPF_RET|unix.BPF_K, retAllow)
	base := len(p.code)
	for _, r := range rets {
		p.stmt(unix.BPF_RET|unix.BPF_K, r)
	}
	target := func(at int, r uint32) uint8 {
		if r == 0 {
			return 0
		}
		if r == retAllow {
			return uint8(base - 1 - at - 1)
		}
		return uint8(base + slices.Index(rets, r) - at - 1)
	}
	for _, f := range p.fixups {
		p.code[f.at].Jt, p.code[f.at].Jf = target(f.at, f.jt), target(f.at, f.jf)
	}
	return p.code
}

// buildFilter is the seccomp program for policy p: containment calls
// and writes go to the server (which refuses the first and lets Landlock
// have its say on the second), clone3 and openat2 answer ENOSYS (their
// flags are out of the filter's sight; libraries fall back to clone and
// openat), and with the network off, sockets other than AF_UNIX go to the
// server, which refuses them.
func buildFilter(p *Policy) []unix.SockFilter {
	var f program
	f.stmt(unix.BPF_LD|unix.BPF_W|unix.BPF_ABS, offArch)
	f.jump(unix.BPF_JMP|unix.BPF_JEQ|unix.BPF_K, auditArch, 0, retKill)
	f.stmt(unix.BPF_LD|unix.BPF_W|unix.BPF_ABS, offNr)
	f.jump(unix.BPF_JMP|unix.BPF_JGE|unix.BPF_K, x32Bit, retErrno(unix.EPERM), 0)
	for _, nr := range sortedKeys(callsDenied) {
		f.onCall(nr, retNotify)
	}
	for _, nr := range sortedKeys(callsWrite) {
		f.onCall(nr, retNotify)
	}
	f.onCall(sysClone3, retErrno(unix.ENOSYS))
	f.onCall(sysOpenat2, retErrno(unix.ENOSYS))
	f.onArg(sysOpenat, 2, unix.BPF_JSET, openWrite, retNotify, retAllow)
	if sysOpen != ^uint32(0) {
		f.onArg(sysOpen, 1, unix.BPF_JSET, openWrite, retNotify, retAllow)
	}
	f.onArg(sysClone, 0, unix.BPF_JSET, newNamespaces, retNotify, retAllow)
	f.onArg(sysIoctl, 1, unix.BPF_JEQ, unix.TIOCSTI, retErrno(unix.EPERM), retAllow)
	if p.Network == NetworkOff {
		f.onArg(sysSocket, 0, unix.BPF_JEQ, unix.AF_UNIX, retAllow, retNotify)
	}
	return f.finish()
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
