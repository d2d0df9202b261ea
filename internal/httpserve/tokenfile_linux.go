package httpserve

import "golang.org/x/sys/unix"

// readOnlyMount reports whether p is on a read-only mount.
func readOnlyMount(p string) bool {
	var s unix.Statfs_t
	return unix.Statfs(p, &s) == nil && s.Flags&unix.ST_RDONLY != 0
}
