//go:build unix

package safedir

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// maxLinks bounds the symbolic links followed while checking one path, as
// the kernel's own limit (40) does.
const maxLinks = 40

// CheckPath reports whether every existing component of path, from the
// root down, is safe from other users: owned by this user or root, and,
// for a directory that holds further components, writable by no one else
// unless it is sticky (then the entry below it must be ours or root's).
// Symbolic links are followed and their targets checked the same way.
// Components that do not exist yet are fine if the directory they would be
// created in is safe: the caller creates them, privately, and checks again.
func CheckPath(path string) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	links := 0
	return checkFrom(abs, &links)
}

func checkFrom(abs string, links *int) error {
	uid := uint32(os.Geteuid())
	parts := strings.Split(strings.TrimPrefix(filepath.Clean(abs), "/"), "/")
	cur := "/"
	var parent unix.Stat_t
	if err := unix.Lstat(cur, &parent); err != nil {
		return fmt.Errorf("checking %s: %w", cur, err)
	}
	if err := ownedDir(cur, &parent, uid); err != nil {
		return err
	}
	for i, name := range parts {
		if name == "" {
			continue
		}
		next := filepath.Join(cur, name)
		var st unix.Stat_t
		// An entry of a directory others can write to is theirs to swap
		// (or to create first), unless the sticky bit protects entries
		// they do not own.
		if openToOthers(&parent) {
			return fmt.Errorf("%s is writable by other users (mode %#o, not sticky): they could replace %s; use a directory of your own", cur, parent.Mode&0o7777, next)
		}
		if err := unix.Lstat(next, &st); err != nil {
			if errors.Is(err, unix.ENOENT) {
				return nil // created by the caller; check again after
			}
			return fmt.Errorf("checking %s: %w", next, err)
		}
		if st.Uid != uid && st.Uid != 0 {
			return fmt.Errorf("%s belongs to uid %d, not to this user or root: another user could replace what is below it; use a directory of your own", next, st.Uid)
		}
		if st.Mode&unix.S_IFMT == unix.S_IFLNK {
			*links++
			if *links > maxLinks {
				return fmt.Errorf("checking %s: too many symbolic links", abs)
			}
			target, err := os.Readlink(next)
			if err != nil {
				return fmt.Errorf("checking %s: %w", next, err)
			}
			if !filepath.IsAbs(target) {
				target = filepath.Join(cur, target)
			}
			return checkFrom(filepath.Join(append([]string{target}, parts[i+1:]...)...), links)
		}
		cur, parent = next, st
	}
	return nil
}

// openToOthers reports whether a directory lets another user replace its
// entries: writable by others, or by a group other than this user's
// primary group (the token file's rule, docs/deploy.md), without the
// sticky bit.
func openToOthers(st *unix.Stat_t) bool {
	if st.Mode&unix.S_ISVTX != 0 {
		return false
	}
	return st.Mode&0o002 != 0 || st.Mode&0o020 != 0 && st.Gid != uint32(os.Getegid())
}

// ownedDir checks the root directory: ours or root's, and not open to
// others for writing.
func ownedDir(path string, st *unix.Stat_t, uid uint32) error {
	if st.Uid != uid && st.Uid != 0 {
		return fmt.Errorf("%s belongs to uid %d", path, st.Uid)
	}
	return nil
}

// PrivateDir checks that dir is a directory (not a link) of this user that
// nobody else can enter or change, and that the path to it is safe
// (CheckPath).
func PrivateDir(dir string) error {
	if err := CheckPath(filepath.Dir(dir)); err != nil {
		return err
	}
	var st unix.Stat_t
	if err := unix.Lstat(dir, &st); err != nil {
		return fmt.Errorf("checking %s: %w", dir, err)
	}
	switch {
	case st.Mode&unix.S_IFMT != unix.S_IFDIR:
		return fmt.Errorf("%s is not a directory (a link or a file)", dir)
	case st.Uid != uint32(os.Geteuid()):
		return fmt.Errorf("%s belongs to uid %d, not to this user", dir, st.Uid)
	case st.Mode&0o077 != 0:
		return fmt.Errorf("%s has mode %#o; it must be private (0700)", dir, st.Mode&0o7777)
	}
	return nil
}

// EnsureFile makes dir/name a private regular file of this user holding
// exactly content: one that is there and right is left alone (its
// modification time too); one that is missing, a link, another user's, open
// to others, linked elsewhere (more than one hard link) or different is
// replaced by a new one, created exclusively with mode 0600. dir must have
// been checked with PrivateDir.
func EnsureFile(dir, name, content string) error {
	d, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("opening %s (a link is refused): %w", dir, err)
	}
	defer unix.Close(d)
	if fileIs(d, name, content) {
		return nil
	}
	if err := unix.Unlinkat(d, name, 0); err != nil && !errors.Is(err, unix.ENOENT) {
		if !errors.Is(err, unix.EISDIR) && !errors.Is(err, unix.EPERM) {
			return fmt.Errorf("removing %s: %w", filepath.Join(dir, name), err)
		}
		if err := removeAllAt(dir, name); err != nil {
			return err
		}
	}
	fd, err := unix.Openat(d, name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return fmt.Errorf("creating %s: %w", filepath.Join(dir, name), err)
	}
	f := os.NewFile(uintptr(fd), filepath.Join(dir, name))
	_, err = io.WriteString(f, content)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", filepath.Join(dir, name), err)
	}
	return nil
}

// fileIs reports whether name in the directory d is a private regular file
// of this user, with one link, holding content.
func fileIs(d int, name, content string) bool {
	fd, err := unix.Openat(d, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	f := os.NewFile(uintptr(fd), name)
	defer f.Close()
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG ||
		st.Uid != uint32(os.Geteuid()) || st.Mode&0o077 != 0 || st.Nlink != 1 || st.Size != int64(len(content)) {
		return false
	}
	b, err := io.ReadAll(io.LimitReader(f, int64(len(content))+1))
	return err == nil && bytes.Equal(b, []byte(content))
}

// removeAllAt removes a directory planted where a file belongs.
func removeAllAt(dir, name string) error {
	if err := os.RemoveAll(filepath.Join(dir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("removing %s: %w", filepath.Join(dir, name), err)
	}
	return nil
}

// OwnDir reports whether path is a directory (not a link) of this user.
func OwnDir(path string) bool {
	var st unix.Stat_t
	return unix.Lstat(path, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR && st.Uid == uint32(os.Geteuid())
}
