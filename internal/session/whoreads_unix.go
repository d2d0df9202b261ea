//go:build unix

package session

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// systemDirs are where installed programs live.
var systemDirs = []string{"/usr/", "/bin/", "/sbin/", "/lib/", "/lib64/", "/opt/", "/snap/", "/nix/store/"}

// installed reports whether exe is a program installed on the system: it
// lies under a system directory, and it and every directory above it are
// owned by root and writable by no one else, so no user's command (the
// agent's) can have written or swapped it. (A server run as root trusts
// whatever its commands install there.)
func installed(exe string) bool {
	system := false
	for _, d := range systemDirs {
		system = system || strings.HasPrefix(exe, d)
	}
	if !system {
		return false
	}
	for p := exe; ; p = filepath.Dir(p) {
		fi, err := os.Stat(p)
		if err != nil {
			return false
		}
		st, ok := fi.Sys().(*syscall.Stat_t)
		if !ok || st.Uid != 0 || fi.Mode().Perm()&0o022 != 0 {
			return false
		}
		if p == filepath.Dir(p) {
			return true
		}
	}
}
