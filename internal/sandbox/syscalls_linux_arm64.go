package sandbox

import "golang.org/x/sys/unix"

// auditArch is the architecture seccomp_data reports for native calls.
const auditArch = unix.AUDIT_ARCH_AARCH64

// x32Bit: arm64 has no x32 ABI; no number has this bit.
const x32Bit = 0x40000000

// The system calls the filter treats specially, by name (for the report)
// and number, on this architecture (which has only the *at forms).
var (
	// archDenied are the refused calls only this architecture has.
	archDenied = map[uint32]string{}
	callsWrite = map[uint32]pathCall{
		unix.SYS_MKDIRAT: {"mkdir", at(0, 1)}, unix.SYS_MKNODAT: {"mknod", at(0, 1)},
		unix.SYS_RENAMEAT: {"rename", at(0, 1, 2, 3)}, unix.SYS_RENAMEAT2: {"rename", at(0, 1, 2, 3)},
		unix.SYS_LINKAT: {"link", at(0, 1, 2, 3)}, unix.SYS_SYMLINKAT: {"symlink", at(1, 2)}, unix.SYS_UNLINKAT: {"unlink", at(0, 1)},
		unix.SYS_TRUNCATE: {"truncate", at(-1, 0)}, unix.SYS_FCHMOD: {"chmod", fdArg(0)}, unix.SYS_FCHMODAT: {"chmod", at(0, 1)},
		unix.SYS_FCHMODAT2: {"chmod", at(0, 1)}, unix.SYS_FCHOWN: {"chown", fdArg(0)}, unix.SYS_FCHOWNAT: {"chown", at(0, 1)},
		unix.SYS_SETXATTR: {"setxattr", at(-1, 0)}, unix.SYS_LSETXATTR: {"setxattr", at(-1, 0)},
		unix.SYS_FSETXATTR: {"setxattr", fdArg(0)}, unix.SYS_REMOVEXATTR: {"removexattr", at(-1, 0)},
		unix.SYS_LREMOVEXATTR: {"removexattr", at(-1, 0)}, unix.SYS_FREMOVEXATTR: {"removexattr", fdArg(0)},
		unix.SYS_SETXATTRAT: {"setxattr", at(0, 1)}, unix.SYS_REMOVEXATTRAT: {"removexattr", at(0, 1)},
		unix.SYS_UTIMENSAT: {"utime", at(0, 1)},
	}
)

// Calls whose arguments the filter looks at; arm64 has no open(2).
const (
	sysOpen    = ^uint32(0)
	sysOpenat  = unix.SYS_OPENAT
	sysOpenat2 = unix.SYS_OPENAT2
	sysClone   = unix.SYS_CLONE
	sysClone3  = unix.SYS_CLONE3
	sysSocket  = unix.SYS_SOCKET
	sysIoctl   = unix.SYS_IOCTL
	sysConnect = unix.SYS_CONNECT // with a host list, to name a destination
	sysSendto  = unix.SYS_SENDTO  // not through the proxy
)
