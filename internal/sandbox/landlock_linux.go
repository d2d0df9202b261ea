package sandbox

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// landlockABI asks the kernel which Landlock ABI it offers; 0 when none.
func landlockABI() int {
	v, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if errno != 0 {
		return 0
	}
	return int(v)
}

// The write rights Landlock handles at each ABI: reads and execution are
// never restricted.
const (
	fsWrite = unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_REMOVE_DIR |
		unix.LANDLOCK_ACCESS_FS_REMOVE_FILE | unix.LANDLOCK_ACCESS_FS_MAKE_CHAR |
		unix.LANDLOCK_ACCESS_FS_MAKE_DIR | unix.LANDLOCK_ACCESS_FS_MAKE_REG |
		unix.LANDLOCK_ACCESS_FS_MAKE_SOCK | unix.LANDLOCK_ACCESS_FS_MAKE_FIFO |
		unix.LANDLOCK_ACCESS_FS_MAKE_BLOCK | unix.LANDLOCK_ACCESS_FS_MAKE_SYM
	// fileRights are those that apply to a file (a rule on a file may
	// grant no others).
	fileRights = unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_TRUNCATE
)

// handledFS returns the file-system rights handled at abi.
func handledFS(abi int) uint64 {
	h := uint64(fsWrite)
	if abi >= 2 {
		h |= unix.LANDLOCK_ACCESS_FS_REFER
	}
	if abi >= 3 {
		h |= unix.LANDLOCK_ACCESS_FS_TRUNCATE
	}
	return h
}

// rulesetSize is the size of the ruleset attribute a kernel of abi knows.
func rulesetSize(abi int) uintptr {
	switch {
	case abi >= 6:
		return 24 // handled_access_fs, handled_access_net, scoped
	case abi >= 4:
		return 16
	}
	return 8
}

// buildRuleset makes a Landlock ruleset for p: writes only beneath
// p.Writable; with the network off, no TCP bind or
// connect (ABI 4); no signals or abstract sockets out of the domain (ABI
// 6). It returns the ruleset's descriptor.
func buildRuleset(p *Policy, abi int) (int, error) {
	attr := unix.LandlockRulesetAttr{Handled_access_fs: handledFS(abi)}
	if abi >= 4 && p.Network == NetworkOff {
		attr.Handled_access_net = unix.LANDLOCK_ACCESS_NET_BIND_TCP | unix.LANDLOCK_ACCESS_NET_CONNECT_TCP
	}
	if abi >= 6 {
		attr.Scoped = unix.LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | unix.LANDLOCK_SCOPE_SIGNAL
	}
	fd, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), rulesetSize(abi), 0)
	if errno != 0 {
		return -1, fmt.Errorf("creating landlock ruleset: %w", errno)
	}
	for _, path := range p.Writable {
		if err := allowBeneath(int(fd), path, attr.Handled_access_fs); err != nil {
			unix.Close(int(fd))
			return -1, err
		}
	}
	return int(fd), nil
}

// allowBeneath grants the handled write rights beneath path (a file gets
// only the rights of a file). A path that does not exist is skipped.
func allowBeneath(ruleset int, path string, handled uint64) error {
	fd, err := unix.Open(path, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fmt.Errorf("landlock rule for %s: %w", path, err)
	}
	rights := handled
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		rights &= fileRights
	}
	rule := unix.LandlockPathBeneathAttr{Allowed_access: rights, Parent_fd: int32(fd)}
	_, _, errno := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(ruleset), unix.LANDLOCK_RULE_PATH_BENEATH, uintptr(unsafe.Pointer(&rule)), 0, 0, 0)
	if errno != 0 {
		return fmt.Errorf("landlock rule for %s: %w", path, errno)
	}
	return nil
}

// restrictThread enforces ruleset on the calling thread (no_new_privs
// must be set already).
func restrictThread(ruleset int) error {
	if _, _, errno := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, uintptr(ruleset), 0, 0); errno != 0 {
		return fmt.Errorf("enforcing landlock ruleset: %w", errno)
	}
	return nil
}
