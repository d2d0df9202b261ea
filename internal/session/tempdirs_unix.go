//go:build unix

package session

import (
	"os"

	"golang.org/x/sys/unix"
)

// ownDir reports whether path is a directory (not a link) of this user.
func ownDir(path string) bool {
	var st unix.Stat_t
	return unix.Lstat(path, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR && st.Uid == uint32(os.Geteuid())
}
