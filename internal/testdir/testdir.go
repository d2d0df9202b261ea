// Package testdir gives tests temporary directories and symbolic links that
// behave the same on every platform the tests run on, wine 8 included.
//
// Under wine 8, Go's os.RemoveAll fails ("unlinkat: Invalid function"), so
// t.TempDir fails every test at cleanup, and a symbolic link reads as its
// target. New removes its directory file by file when RemoveAll fails, and
// Symlink skips a test, saying why, where links cannot be told apart.
package testdir

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// New returns a new directory, with symbolic links in its path resolved,
// that is removed when the test ends.
func New(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "ys-test-")
	if err == nil {
		dir, err = filepath.EvalSymlinks(dir)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := remove(dir); err != nil {
			t.Errorf("removing the test's directory: %v", err)
		}
	})
	return dir
}

// remove is os.RemoveAll, falling back to removing one entry at a time,
// deepest first, where the platform's RemoveAll fails.
func remove(dir string) error {
	if os.RemoveAll(dir) == nil {
		return nil
	}
	var paths []string
	if err := filepath.WalkDir(dir, func(path string, _ fs.DirEntry, err error) error {
		paths = append(paths, path)
		return err
	}); err != nil {
		return err
	}
	for _, p := range slices.Backward(paths) {
		if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
			return err
		}
	}
	return nil
}

// Symlink makes link point to target. It skips the test where the link
// reads as its target (wine 8 has no reparse points), so what the test
// would check about links cannot be checked there.
func Symlink(t testing.TB, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Skip("a symbolic link here reads as its target (wine 8 has no reparse points), so links cannot be tested")
	}
}
