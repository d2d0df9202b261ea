//go:build unix

package disklog

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/yieldshell/yieldshell/internal/safedir"
)

// openDir opens the log directory, creating it if needed, and checks that
// only this user can change what is in it, and that the path to it is as
// safe (safedir.CheckPath: every component ours or root's, none writable by
// others unless sticky), before and after creating what was missing.
func openDir(path string) (*os.File, error) {
	if err := safedir.CheckPath(path); err != nil {
		return nil, fmt.Errorf("checking log directory: %w", err)
	}
	if err := os.MkdirAll(path, 0o700); err != nil {
		return nil, fmt.Errorf("creating log directory: %w", err)
	}
	if err := safedir.CheckPath(path); err != nil {
		return nil, fmt.Errorf("checking log directory: %w", err)
	}
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("opening log directory %s (a symlink is refused): %w", path, err)
	}
	dir := os.NewFile(uintptr(fd), path)
	var st unix.Stat_t
	err = unix.Fstat(fd, &st)
	switch {
	case err != nil:
		err = fmt.Errorf("checking log directory: %w", err)
	case st.Uid != uint32(os.Geteuid()):
		err = fmt.Errorf("log directory %s belongs to uid %d, not to this user: use a directory of your own", path, st.Uid)
	case st.Mode&0o022 != 0:
		err = fmt.Errorf("log directory %s has mode %#o: others can write to it; chmod go-w %s or use a private directory", path, st.Mode&0o7777, path)
	}
	if err != nil {
		dir.Close()
		return nil, err
	}
	return dir, nil
}

// openIn opens name in dir for appending, creating it if needed, without
// following a link, and checks that it is a regular file of this user.
func openIn(dir *os.File, name string) (*os.File, error) { return openAt(dir, name, 0) }

// createIn is openIn for a file that must not exist yet.
func createIn(dir *os.File, name string) (*os.File, error) { return openAt(dir, name, unix.O_EXCL) }

// openAt is openIn with extra open flags.
func openAt(dir *os.File, name string, extra int) (*os.File, error) {
	flags := unix.O_WRONLY | unix.O_APPEND | unix.O_CREAT | unix.O_NOFOLLOW | unix.O_CLOEXEC | extra
	fd, err := unix.Openat(int(dir.Fd()), name, flags, 0o600)
	if err != nil {
		return nil, fmt.Errorf("opening log file %s (a symlink is refused): %w", name, err)
	}
	f := os.NewFile(uintptr(fd), filepath.Join(dir.Name(), name))
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG || st.Uid != uint32(os.Geteuid()) {
		f.Close()
		return nil, fmt.Errorf("opening log file %s: not a regular file of this user", name)
	}
	return f, nil
}

// renameIn renames a file within dir.
func renameIn(dir *os.File, from, to string) error {
	return unix.Renameat(int(dir.Fd()), from, int(dir.Fd()), to)
}

// TailCommand follows the log file at path, across rotations.
func TailCommand(path string) string {
	return "tail -n 100 -F '" + strings.ReplaceAll(path, "'", `'\''`) + "'"
}
