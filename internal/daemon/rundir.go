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

// RuntimeDirEnv names the directory under which RuntimeDir makes its own
// ("yieldshell"), in place of the per-user default: for tests, and for
// an operator who wants the server somewhere else (every client and
// terminal then needs it too).
const RuntimeDirEnv = "YIELDSHELL_RUNTIME_DIR"

// RuntimeDir is the private per-user directory that holds the persistent
// server's socket, locks and log. It is the same whatever the environment
// of the process asking (a client starts the server with an environment
// of its own, often without XDG_RUNTIME_DIR or TMPDIR, and the CLI in a
// terminal must find that server): /run/user/UID/yieldshell where the
// system keeps a runtime directory for the user (systemd's, which
// XDG_RUNTIME_DIR names when it is set), else /tmp/yieldshell-UID.
// RuntimeDirEnv, when set, chooses the parent instead.
//
// It is created 0700; an existing one must be a real directory (not a
// symlink) owned by this user and closed to everyone else, or it is
// refused: another user who controls it could read the log or stand in
// for the server.
func RuntimeDir(getenv func(string) string) (string, error) {
	uid := os.Getuid()
	dir := defaultRuntimeDir(uid)
	if x := getenv(RuntimeDirEnv); x != "" {
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

// defaultRuntimeDir is uid's directory when the environment chooses none:
// it depends on nothing but the uid and the file system.
func defaultRuntimeDir(uid int) string {
	run := filepath.Join("/run/user", strconv.Itoa(uid))
	if fi, err := os.Lstat(run); err == nil && fi.IsDir() {
		if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) == uid && fi.Mode().Perm()&0o077 == 0 {
			return filepath.Join(run, "yieldshell")
		}
	}
	return filepath.Join("/tmp", "yieldshell-"+strconv.Itoa(uid))
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
		return fmt.Errorf("checking the runtime directory: %s belongs to uid %d, not to you (uid %d); remove it or set "+RuntimeDirEnv+" to a private directory", dir, st.Uid, want)
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
