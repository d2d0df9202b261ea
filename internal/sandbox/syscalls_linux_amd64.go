package sandbox

import "golang.org/x/sys/unix"

// auditArch is the architecture seccomp_data reports for native calls.
const auditArch = unix.AUDIT_ARCH_X86_64

// x32 calls have this bit set in their numbers; they are refused.
const x32Bit = 0x40000000

// The system calls the filter treats specially, by name (for the report)
// and number, on this architecture.
var (
	// archDenied are the refused calls only this architecture has.
	archDenied = map[uint32]string{unix.SYS_IOPL: "iopl", unix.SYS_IOPERM: "ioperm"}
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
	sysConnect = unix.SYS_CONNECT // with a host list, to name a destination
	sysSendto  = unix.SYS_SENDTO  // not through the proxy
)
