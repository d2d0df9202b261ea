package session

import (
	"fmt"
	"os"
	"path/filepath"
)

// openDir opens the log directory, creating it if needed. A directory that
// is a symbolic link or junction is refused; who may write to it is left
// to its ACL (a directory under the user's profile is private).
func (d *diskLog) openDir() (*os.File, error) {
	if err := os.MkdirAll(d.dir, 0o700); err != nil {
		return nil, fmt.Errorf("creating log directory: %w", err)
	}
	fi, err := os.Lstat(d.dir)
	if err != nil {
		return nil, fmt.Errorf("checking log directory: %w", err)
	}
	if !fi.IsDir() || fi.Mode()&(os.ModeSymlink|os.ModeIrregular) != 0 {
		return nil, fmt.Errorf("opening log directory %s: not a directory (a link or junction is refused)", d.dir)
	}
	return os.Open(d.dir)
}

// openIn opens name in dir for appending, refusing anything but a regular
// file. With create it must not exist yet.
func openIn(dir *os.File, name string, create bool) (*os.File, error) {
	path := filepath.Join(dir.Name(), name)
	if fi, err := os.Lstat(path); err == nil && !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("opening log file %s: not a regular file", name)
	}
	flags := os.O_WRONLY | os.O_APPEND | os.O_CREATE
	if create {
		flags |= os.O_EXCL
	}
	f, err := os.OpenFile(path, flags, 0o600)
	if err != nil {
		return nil, fmt.Errorf("opening log file %s: %w", name, err)
	}
	return f, nil
}

// renameIn renames a file within dir.
func renameIn(dir *os.File, from, to string) error {
	return os.Rename(filepath.Join(dir.Name(), from), filepath.Join(dir.Name(), to))
}
