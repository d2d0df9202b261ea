package safedir

import (
	"fmt"
	"os"
	"path/filepath"
)

// CheckPath passes on Windows (see the package comment).
func CheckPath(path string) error { return nil }

// PrivateDir checks that dir is a directory, not a link.
func PrivateDir(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("checking %s: %w", dir, err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a directory (a link or a file)", dir)
	}
	return nil
}

// EnsureFile writes content to dir/name unless it holds it already.
func EnsureFile(dir, name, content string) error {
	path := filepath.Join(dir, name)
	if b, err := os.ReadFile(path); err == nil && string(b) == content {
		return nil
	}
	return os.WriteFile(path, []byte(content), 0o600)
}

// OwnDir reports whether path is a directory, not a link: the temporary
// directory is the user's own on Windows.
func OwnDir(path string) bool {
	fi, err := os.Lstat(path)
	return err == nil && fi.IsDir()
}
