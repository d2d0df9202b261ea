package disklog

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/windows"
)

// openDir opens the log directory, creating it if needed. A directory that
// is a symbolic link or junction (a reparse point) is refused, checked on
// the opened handle; who may write to it is left to its ACL (a directory
// under the user's profile is private).
func openDir(path string) (*os.File, error) {
	if err := os.MkdirAll(path, 0o700); err != nil {
		return nil, fmt.Errorf("creating log directory: %w", err)
	}
	f, err := openNoFollow(path, windows.FILE_LIST_DIRECTORY, windows.OPEN_EXISTING, windows.FILE_FLAG_BACKUP_SEMANTICS)
	if err != nil {
		return nil, fmt.Errorf("opening log directory %s: %w", path, err)
	}
	if attrs, err := attributes(f); err != nil || attrs&windows.FILE_ATTRIBUTE_DIRECTORY == 0 {
		f.Close()
		return nil, fmt.Errorf("opening log directory %s: not a directory (a link or junction is refused)", path)
	}
	return f, nil
}

// openIn opens name in dir for appending, creating it if needed, refusing
// anything but a regular file (a link is opened as itself, never followed,
// then refused). Others may read, rename and delete it while it is open, as
// on Unix.
func openIn(dir *os.File, name string) (*os.File, error) {
	return openWith(dir, name, windows.OPEN_ALWAYS)
}

// createIn is openIn for a file that must not exist yet.
func createIn(dir *os.File, name string) (*os.File, error) {
	return openWith(dir, name, windows.CREATE_NEW)
}

// openWith is openIn with a creation disposition.
func openWith(dir *os.File, name string, disposition uint32) (*os.File, error) {
	f, err := openNoFollow(filepath.Join(dir.Name(), name), windows.FILE_APPEND_DATA|windows.FILE_READ_ATTRIBUTES, disposition, 0)
	if err != nil {
		return nil, fmt.Errorf("opening log file %s: %w", name, err)
	}
	if attrs, err := attributes(f); err != nil || attrs&windows.FILE_ATTRIBUTE_DIRECTORY != 0 {
		f.Close()
		return nil, fmt.Errorf("opening log file %s: not a regular file", name)
	}
	return f, nil
}

// errReparse: the path is a symbolic link or junction.
var errReparse = errors.New("a link or junction is refused")

// openNoFollow opens path itself, not what a link there points to, and
// refuses it if it is a reparse point.
func openNoFollow(path string, access, disposition, flags uint32) (*os.File, error) {
	p, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return nil, err
	}
	h, err := windows.CreateFile(p, access|windows.SYNCHRONIZE,
		windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE, nil,
		disposition, windows.FILE_ATTRIBUTE_NORMAL|windows.FILE_FLAG_OPEN_REPARSE_POINT|flags, 0)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(h), path)
	if attrs, err := attributes(f); err != nil || attrs&windows.FILE_ATTRIBUTE_REPARSE_POINT != 0 {
		f.Close()
		return nil, errReparse
	}
	return f, nil
}

func attributes(f *os.File) (uint32, error) {
	var info windows.ByHandleFileInformation
	if err := windows.GetFileInformationByHandle(windows.Handle(f.Fd()), &info); err != nil {
		return 0, err
	}
	return info.FileAttributes, nil
}

// renameIn renames a file within dir; errInUse when another process has
// it open without sharing delete access.
func renameIn(dir *os.File, from, to string) error {
	err := os.Rename(filepath.Join(dir.Name(), from), filepath.Join(dir.Name(), to))
	if errors.Is(err, windows.ERROR_SHARING_VIOLATION) {
		return fmt.Errorf("%w: %w", errInUse, err)
	}
	return err
}

// TailCommand follows the log file at path in PowerShell (Windows has no
// tail). Get-Content -Wait holds the file without sharing delete access,
// so while it runs the file is not rotated away from it (see rotate).
func TailCommand(path string) string {
	return "powershell -NoProfile -Command \"Get-Content -Tail 100 -Wait -LiteralPath '" + strings.ReplaceAll(path, "'", "''") + "'\""
}
