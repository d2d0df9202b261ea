package session

import "os"

// ownDir reports whether path is a directory, not a link: the temporary
// directory is the user's own on Windows.
func ownDir(path string) bool {
	fi, err := os.Lstat(path)
	return err == nil && fi.IsDir()
}
