package pty

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"strings"

	"golang.org/x/sys/unix"

	"github.com/yieldshell/yieldshell/internal/proc"
)

// pinDir opens dir (absolute) one component at a time, following no
// symbolic link (O_PATH|O_NOFOLLOW), and returns what the child should
// chdir to: /proc/self/fd/N, the directory opened. The child changes
// directory before it execs, while it still holds the server's
// descriptors, so it lands in the very directory that was opened: a
// component swapped for a link after policy checked the path cannot take
// the command elsewhere (issue 30 item 7); the start fails instead. The
// caller closes the descriptor (done) once the child has started. Without
// /proc the child gets dir itself, as before.
func pinDir(dir string) (childDir string, done func(), err error) {
	noop := func() {}
	if dir == "" || !filepath.IsAbs(dir) {
		return dir, noop, nil
	}
	const flags = unix.O_PATH | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC
	fd, err := unix.Open("/", flags, 0)
	if err != nil {
		return "", nil, fmt.Errorf("chdir %s: opening /: %w", dir, err)
	}
	for name := range strings.SplitSeq(filepath.Clean(dir)[1:], "/") {
		if name == "" {
			continue
		}
		next, err := unix.Openat(fd, name, flags, 0)
		unix.Close(fd)
		if err != nil {
			if errors.Is(err, unix.ENOTDIR) || errors.Is(err, unix.ELOOP) {
				return "", nil, fmt.Errorf("chdir %s: %q is no longer a directory (a symbolic link was put in its place?): %w", dir, name, err)
			}
			return "", nil, fmt.Errorf("chdir %s: %w", dir, err)
		}
		fd = next
	}
	childDir = proc.SelfFD(fd)
	if _, err := os.Stat(childDir); err != nil {
		unix.Close(fd)
		return dir, noop, nil // no /proc: the path, and its race
	}
	return childDir, func() { unix.Close(fd) }, nil
}
