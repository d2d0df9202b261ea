package sandbox

import "golang.org/x/sys/unix"

// auditArch is the architecture seccomp_data reports for native calls.
const auditArch = unix.AUDIT_ARCH_X86_64

// x32 calls have this bit set in their numbers; they are refused.
const x32Bit = 0x40000000

// The system calls the filter treats specially, by name (for the report)
// and number, on this architecture.
var (
	callsDenied = map[uint32]string{
		unix.SYS_PTRACE: "ptrace", unix.SYS_PROCESS_VM_READV: "process_vm_readv", unix.SYS_PROCESS_VM_WRITEV: "process_vm_writev",
		unix.SYS_PIDFD_GETFD: "pidfd_getfd", unix.SYS_MOUNT: "mount", unix.SYS_UMOUNT2: "umount2", unix.SYS_PIVOT_ROOT: "pivot_root",
		unix.SYS_CHROOT: "chroot", unix.SYS_MOVE_MOUNT: "move_mount", unix.SYS_OPEN_TREE: "open_tree", unix.SYS_FSOPEN: "fsopen",
		unix.SYS_FSCONFIG: "fsconfig", unix.SYS_FSMOUNT: "fsmount", unix.SYS_FSPICK: "fspick", unix.SYS_MOUNT_SETATTR: "mount_setattr",
		unix.SYS_UNSHARE: "unshare", unix.SYS_SETNS: "setns", unix.SYS_IO_URING_SETUP: "io_uring_setup",
		unix.SYS_IO_URING_ENTER: "io_uring_enter", unix.SYS_IO_URING_REGISTER: "io_uring_register", unix.SYS_BPF: "bpf",
		unix.SYS_PERF_EVENT_OPEN: "perf_event_open", unix.SYS_KEXEC_LOAD: "kexec_load", unix.SYS_KEXEC_FILE_LOAD: "kexec_file_load",
		unix.SYS_INIT_MODULE: "init_module", unix.SYS_FINIT_MODULE: "finit_module", unix.SYS_DELETE_MODULE: "delete_module",
		unix.SYS_USERFAULTFD: "userfaultfd", unix.SYS_OPEN_BY_HANDLE_AT: "open_by_handle_at", unix.SYS_KEYCTL: "keyctl",
		unix.SYS_ADD_KEY: "add_key", unix.SYS_REQUEST_KEY: "request_key", unix.SYS_SWAPON: "swapon", unix.SYS_SWAPOFF: "swapoff",
		unix.SYS_REBOOT: "reboot", unix.SYS_IOPL: "iopl", unix.SYS_IOPERM: "ioperm", unix.SYS_ACCT: "acct",
		unix.SYS_SETTIMEOFDAY: "settimeofday", unix.SYS_CLOCK_SETTIME: "clock_settime", unix.SYS_SETHOSTNAME: "sethostname",
		unix.SYS_SETDOMAINNAME: "setdomainname", unix.SYS_QUOTACTL: "quotactl",
	}
	// callsWrite change the file system; each names its path(s) by the
	// argument positions in pathArgs.
	callsWrite = map[uint32]pathCall{
		unix.SYS_CREAT: {"open", at(-1, 0)}, unix.SYS_MKDIR: {"mkdir", at(-1, 0)}, unix.SYS_MKDIRAT: {"mkdir", at(0, 1)},
		unix.SYS_MKNOD: {"mknod", at(-1, 0)}, unix.SYS_MKNODAT: {"mknod", at(0, 1)},
		unix.SYS_RENAME: {"rename", at(-1, 0, -1, 1)}, unix.SYS_RENAMEAT: {"rename", at(0, 1, 2, 3)},
		unix.SYS_RENAMEAT2: {"rename", at(0, 1, 2, 3)}, unix.SYS_LINK: {"link", at(-1, 0, -1, 1)}, unix.SYS_LINKAT: {"link", at(0, 1, 2, 3)},
		unix.SYS_SYMLINK: {"symlink", at(-1, 1)}, unix.SYS_SYMLINKAT: {"symlink", at(1, 2)},
		unix.SYS_UNLINK: {"unlink", at(-1, 0)}, unix.SYS_UNLINKAT: {"unlink", at(0, 1)}, unix.SYS_RMDIR: {"rmdir", at(-1, 0)},
		unix.SYS_TRUNCATE: {"truncate", at(-1, 0)}, unix.SYS_CHMOD: {"chmod", at(-1, 0)}, unix.SYS_FCHMOD: {"chmod", fdArg(0)},
		unix.SYS_FCHMODAT: {"chmod", at(0, 1)}, unix.SYS_FCHMODAT2: {"chmod", at(0, 1)}, unix.SYS_CHOWN: {"chown", at(-1, 0)},
		unix.SYS_FCHOWN: {"chown", fdArg(0)}, unix.SYS_LCHOWN: {"chown", at(-1, 0)}, unix.SYS_FCHOWNAT: {"chown", at(0, 1)},
		unix.SYS_SETXATTR: {"setxattr", at(-1, 0)}, unix.SYS_LSETXATTR: {"setxattr", at(-1, 0)},
		unix.SYS_FSETXATTR: {"setxattr", fdArg(0)}, unix.SYS_REMOVEXATTR: {"removexattr", at(-1, 0)},
		unix.SYS_LREMOVEXATTR: {"removexattr", at(-1, 0)}, unix.SYS_FREMOVEXATTR: {"removexattr", fdArg(0)},
		unix.SYS_SETXATTRAT: {"setxattr", at(0, 1)}, unix.SYS_REMOVEXATTRAT: {"removexattr", at(0, 1)},
		unix.SYS_UTIME: {"utime", at(-1, 0)}, unix.SYS_UTIMES: {"utime", at(-1, 0)},
		unix.SYS_UTIMENSAT: {"utime", at(0, 1)}, unix.SYS_FUTIMESAT: {"utime", at(0, 1)},
	}
)

// Calls whose arguments the filter looks at.
const (
	sysOpen    = unix.SYS_OPEN // flags in argument 1
	sysOpenat  = unix.SYS_OPENAT
	sysOpenat2 = unix.SYS_OPENAT2
	sysClone   = unix.SYS_CLONE
	sysClone3  = unix.SYS_CLONE3
	sysSocket  = unix.SYS_SOCKET
	sysIoctl   = unix.SYS_IOCTL
)
