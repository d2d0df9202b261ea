//go:build unix

package httpserve

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// maxLinks bounds the symlinks followed on the way to a token file, as
// the kernel's own limit does.
const maxLinks = 40

// readChecked walks path one component at a time as the kernel resolves
// it, checks every directory and symlink it passes and the file it ends
// at against the rule in tokenfile.go, then reads that file.
func readChecked(path string, u serverUser) ([]byte, string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, "", err
	}
	cur := "/"
	if err := mayChange(cur, u, true); err != nil {
		return nil, "", err
	}
	pending := strings.Split(abs, "/")
	links := 0
	for len(pending) > 0 {
		name := pending[0]
		pending = pending[1:]
		switch name {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur) // cur holds no symlink: this is what the kernel does
			continue
		}
		next := filepath.Join(cur, name)
		fi, err := os.Lstat(next)
		if err != nil {
			return nil, "", explainAccess(err, path, u.uid)
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			if err := mayChange(next, u, false); err != nil {
				return nil, "", err
			}
			if links++; links > maxLinks {
				return nil, "", fmt.Errorf("%s: more than %d symlinks on the way", path, maxLinks)
			}
			target, err := os.Readlink(next)
			if err != nil {
				return nil, "", err
			}
			if filepath.IsAbs(target) {
				cur = "/"
			}
			pending = append(strings.Split(target, "/"), pending...)
			continue
		}
		if !slices.ContainsFunc(pending, func(s string) bool { return s != "" && s != "." }) {
			// The last component: the token file itself.
			if !fi.Mode().IsRegular() {
				return nil, "", fmt.Errorf("%s is not a regular file (%s)", next, fi.Mode().Type())
			}
			if err := mayChange(next, u, false); err != nil {
				return nil, "", err
			}
			b, err := readSame(next, fi)
			if err != nil {
				return nil, "", explainAccess(err, path, u.uid)
			}
			return b, readers(next, fi, u), nil
		}
		if !fi.IsDir() {
			return nil, "", fmt.Errorf("%s: %s is not a directory", path, next)
		}
		if err := mayChange(next, u, true); err != nil {
			return nil, "", err
		}
		cur = next
	}
	return nil, "", fmt.Errorf("%s names a directory, not a file", path)
}

// mayChange refuses p when a user other than root and u could change
// what it holds: its owner, or (unless a directory has the sticky bit,
// which leaves each entry to its owner) anyone its other write bit, or
// its group write bit for a group other than u's primary one, admits. A
// read-only mount changes for nobody.
func mayChange(p string, u serverUser, dir bool) error {
	uid := u.uid
	fi, err := os.Lstat(p)
	if err != nil {
		return err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fmt.Errorf("%s: no owner to check", p)
	}
	what := "the token file " + p
	if dir {
		what = "directory " + p
	} else if fi.Mode()&fs.ModeSymlink != 0 {
		what = "symlink " + p
	}
	var who string
	perm := fi.Mode().Perm()
	switch sticky := dir && fi.Mode()&fs.ModeSticky != 0; {
	case int(st.Uid) != 0 && int(st.Uid) != uid:
		who = fmt.Sprintf("%s belongs to uid %d", what, st.Uid)
	case fi.Mode()&fs.ModeSymlink != 0:
		// A symlink's own mode means nothing; its directory was checked.
	case perm&0o002 != 0 && !sticky:
		who = fmt.Sprintf("%s is writable by every user (mode %#o)", what, perm)
	case perm&0o020 != 0 && !sticky && int(st.Gid) != u.gid:
		who = fmt.Sprintf("%s is writable by group %d (mode %#o)", what, st.Gid, perm)
	}
	mount := p
	if fi.Mode()&fs.ModeSymlink != 0 {
		mount = filepath.Dir(p) // statfs would follow the link
	}
	if who == "" || readOnlyMount(mount) {
		return nil
	}
	return fmt.Errorf("%s, so another user could have chosen the token: the file and the directories and symlinks leading to it must belong to root or uid %d and be writable by no one else (group write is fine for gid %d), or be on a read-only mount, as Docker secrets and Kubernetes Secret volumes are", who, uid, u.gid)
}

// readers names who besides the server's user can read the file: others,
// or a group the server is not in. "" when nobody else can.
func readers(p string, fi fs.FileInfo, u serverUser) string {
	uid := u.uid
	st := fi.Sys().(*syscall.Stat_t)
	perm := fi.Mode().Perm()
	switch {
	case perm&0o004 != 0:
		return fmt.Sprintf("every user of this machine can read the token file %s (mode %#o), and whoever reads the token can run commands as uid %d", p, perm, uid)
	case perm&0o040 != 0 && !slices.Contains(u.groups, int(st.Gid)):
		return fmt.Sprintf("group %d can read the token file %s (mode %#o), and whoever reads the token can run commands as uid %d", st.Gid, p, perm, uid)
	case int(st.Uid) != uid && int(st.Uid) != 0:
		// Accepted only on a read-only mount: its owner reads it too.
		return fmt.Sprintf("uid %d owns the token file %s and can read it, and whoever reads the token can run commands as uid %d", st.Uid, p, uid)
	}
	return ""
}

// readSame reads p, refusing it if it is no longer the file fi describes.
func readSame(p string, fi fs.FileInfo) ([]byte, error) {
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	now, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !os.SameFile(fi, now) {
		return nil, fmt.Errorf("%s was replaced while it was checked", p)
	}
	return io.ReadAll(io.LimitReader(f, 64<<10))
}

// explainAccess says how to fix a token file the server may not read.
func explainAccess(err error, path string, uid int) error {
	if errors.Is(err, fs.ErrPermission) {
		return fmt.Errorf("%w: the server runs as uid %d and must be able to read %s: chown %d %s, or hand it over as a Docker secret or a Kubernetes Secret volume with fsGroup", err, uid, path, uid, path)
	}
	return err
}
