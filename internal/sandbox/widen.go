package sandbox

import (
	"os"
	"path/filepath"
	"slices"

	"github.com/yieldshell/yieldshell/internal/proc"
)

// kernelTrees are the kernel's own interfaces: a write there is no
// workspace file, and never offered.
var kernelTrees = []string{proc.Root(), "/sys", "/dev"}

// Widen returns what a person may allow so that op on path (a denial's,
// resolved as the Monitor names it) succeeds in a workspace-write
// sandbox, and whether it may be offered at all. Landlock grants rights
// beneath an existing file or directory, so:
//   - op writes an existing regular file's content or metadata (open,
//     truncate, chmod, chown, xattrs, utime): that file only;
//   - op makes or removes a name (mkdir, mknod, symlink, link, unlink,
//     rmdir, rename, or open of a file that does not exist): the
//     directory it is made in, which must exist, and everything beneath.
//
// Never offered: the root directory; anything in /proc, /sys or /dev; a
// path the allowance would still not let op write (a repository's .git,
// .git/hooks or .git/config, or inside keep); a target inside one of
// keep or holding one (yieldshell's own files: without the seccomp
// monitor nothing else would keep them read-only); anything but a
// regular file or a directory (a dangling symlink would create its
// target elsewhere).
func Widen(op, path string, keep []string) (string, bool) {
	if !filepath.IsAbs(path) {
		return "", false
	}
	path = filepath.Clean(path)
	target := path
	fi, err := os.Lstat(path)
	if err != nil || namesOp(op) {
		target = filepath.Dir(path)
		fi, err = os.Lstat(target)
	}
	if err != nil || !fi.Mode().IsRegular() && !fi.IsDir() || target == "/" {
		return "", false
	}
	kept := make([]string, 0, len(keep)+len(kernelTrees))
	for _, k := range slices.Concat(keep, kernelTrees) {
		if real, err := filepath.EvalSymlinks(k); err == nil {
			k = real
		}
		kept = append(kept, filepath.Clean(k))
	}
	for _, k := range kept {
		if within(target, k) || within(k, target) {
			return "", false
		}
	}
	p := Policy{Writable: []string{target}, Protected: kept}
	if !p.allowed(op, path) || gitProtected("open", target) {
		return "", false
	}
	return target, true
}

// namesOp reports whether op makes or removes a name in a directory
// (and needs the directory's rights, not the file's).
func namesOp(op string) bool {
	switch op {
	case "mkdir", "mknod", "symlink", "link", "unlink", "rmdir", "rename":
		return true
	}
	return false
}
