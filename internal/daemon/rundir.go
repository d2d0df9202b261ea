//go:build unix

package daemon

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/yieldshell/yieldshell/internal/safedir"
)

// RuntimeDir is the private per-user directory that holds the persistent
// server's socket, locks and log: $XDG_RUNTIME_DIR/yieldshell when that is
// set, else yieldshell-UID under the temporary directory. It is created
// 0700; an existing one must be a real directory (not a symlink) owned by
// this user and closed to everyone else, or it is refused: another user
// who controls it could read the log or stand in for the server.
func RuntimeDir(getenv func(string) string) (string, error) {
	uid := os.Getuid()
	dir := filepath.Join(os.TempDir(), "yieldshell-"+strconv.Itoa(uid))
	if x := getenv("XDG_RUNTIME_DIR"); x != "" {
		dir = filepath.Join(x, "yieldshell")
	}
	if err := safedir.CheckPath(filepath.Dir(dir)); err != nil {
		return "", fmt.Errorf("checking the path to the runtime directory: %w", err)
	}
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return "", fmt.Errorf("creating the runtime directory: %w", err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return "", fmt.Errorf("checking the runtime directory: %w", err)
	}
	if err := checkPrivateDir(dir, fi, uint32(uid)); err != nil {
		return "", err
	}
	return dir, nil
}

// checkPrivateDir refuses a directory that is not a directory, is owned by
// another uid than want, or is open to the group or others.
func checkPrivateDir(dir string, fi fs.FileInfo, want uint32) error {
	if !fi.IsDir() {
		return fmt.Errorf("checking the runtime directory: %s is not a directory (a symlink or a file); remove it", dir)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fmt.Errorf("checking the runtime directory: cannot read the owner of %s", dir)
	}
	if st.Uid != want {
		return fmt.Errorf("checking the runtime directory: %s belongs to uid %d, not to you (uid %d); remove it or set XDG_RUNTIME_DIR to a private directory", dir, st.Uid, want)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return fmt.Errorf("checking the runtime directory: %s has mode %#o; it must be private: chmod 700 %s", dir, fi.Mode().Perm(), dir)
	}
	return nil
}

// lockFile takes an exclusive flock on path, blocking until it is free.
// The lock lasts until the returned file is closed or the process exits.
func lockFile(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("opening lock: %w", err)
	}
	for {
		err = unix.Flock(int(f.Fd()), unix.LOCK_EX)
		if !errors.Is(err, unix.EINTR) {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("locking %s: %w", path, err)
	}
	return f, nil
}

// LockInstance takes the lock that makes one server per user: a second one
// waits here until the first has gone (a stop in progress), then takes
// over. Closing the file releases it.
func LockInstance(dir string) (*os.File, error) {
	return lockFile(filepath.Join(dir, instanceLock))
}
