//go:build unix

package safedir

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A log directory under a parent another user can write to (or swap) is
// refused, wherever on the path that parent is; a sticky parent (/tmp) is
// fine. Issue 30 item 7: only the last component was checked.
func TestCheckPathRefusesAParentOthersCanWrite(t *testing.T) {
	base := t.TempDir()
	open := filepath.Join(base, "open")
	if err := os.Mkdir(open, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o777); err != nil {
		t.Fatal(err)
	}
	logs := filepath.Join(open, "mine", "logs")
	if err := os.MkdirAll(logs, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := CheckPath(logs); err == nil || !strings.Contains(err.Error(), "writable by other users") {
		t.Errorf("CheckPath under a world-writable parent: %v", err)
	}
	// Not created yet: the parent is just as unsafe.
	if err := CheckPath(filepath.Join(open, "new", "logs")); err == nil {
		t.Error("CheckPath of a path to be created under a world-writable parent passed")
	}
	if err := os.Chmod(open, 0o777|os.ModeSticky); err != nil {
		t.Fatal(err)
	}
	if err := CheckPath(logs); err != nil {
		t.Errorf("CheckPath under a sticky parent: %v", err)
	}
	// A link to it from a safe place is followed and refused the same.
	if err := os.Chmod(open, 0o777); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(base, "link")
	if err := os.Symlink(filepath.Join(open, "mine"), link); err != nil {
		t.Fatal(err)
	}
	if err := CheckPath(filepath.Join(link, "logs")); err == nil {
		t.Error("CheckPath through a link into a world-writable directory passed")
	}
	if err := CheckPath(t.TempDir()); err != nil {
		t.Errorf("CheckPath of a private temporary directory: %v", err)
	}
}

// A component that belongs to another user is refused (needs root to set
// up).
func TestCheckPathRefusesAnotherUsersComponent(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("chown needs root")
	}
	base := t.TempDir()
	theirs := filepath.Join(base, "theirs")
	if err := os.MkdirAll(filepath.Join(theirs, "logs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(theirs, 4321, 4321); err != nil {
		t.Fatal(err)
	}
	if err := CheckPath(filepath.Join(theirs, "logs")); err == nil || !strings.Contains(err.Error(), "uid 4321") {
		t.Errorf("CheckPath under another user's directory: %v", err)
	}
}

// EnsureFile replaces a planted link, a file open to others, a hard link
// and changed content, and leaves a right file alone.
func TestEnsureFileReplacesPlantedFiles(t *testing.T) {
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := PrivateDir(dir); err != nil {
		t.Fatal(err)
	}
	const want = "echo integrated\n"
	target := filepath.Join(t.TempDir(), "evil")
	if err := os.WriteFile(target, []byte("echo planted\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "bashrc")
	plant := map[string]func() error{
		"symlink":   func() error { return os.Symlink(target, path) },
		"hard link": func() error { return os.Link(target, path) },
		"mode 0644": func() error { return os.WriteFile(path, []byte(want), 0o644) },
		"content":   func() error { return os.WriteFile(path, []byte("echo planted\n"), 0o600) },
		"directory": func() error { return os.Mkdir(path, 0o700) },
	}
	for what, f := range plant {
		_ = os.RemoveAll(path)
		if err := f(); err != nil {
			t.Fatal(what, err)
		}
		if err := os.Chmod(path, 0o644); err != nil && what == "mode 0644" {
			t.Fatal(err)
		}
		if err := EnsureFile(dir, "bashrc", want); err != nil {
			t.Errorf("%s: %v", what, err)
			continue
		}
		fi, err := os.Lstat(path)
		b, _ := os.ReadFile(path)
		if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o600 || string(b) != want {
			t.Errorf("%s: after EnsureFile: %v %v %q", what, fi.Mode(), err, b)
		}
		if b, _ := os.ReadFile(target); string(b) != "echo planted\n" {
			t.Errorf("%s: written through to the target: %q", what, b)
		}
	}
	fi1, _ := os.Stat(path)
	if err := EnsureFile(dir, "bashrc", want); err != nil {
		t.Fatal(err)
	}
	fi2, _ := os.Stat(path)
	if !os.SameFile(fi1, fi2) {
		t.Error("a right file was replaced")
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := PrivateDir(dir); err == nil {
		t.Error("PrivateDir of a 0755 directory passed")
	}
}
