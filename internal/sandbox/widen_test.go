package sandbox

import (
	"os"
	"path/filepath"
	"testing"
)

// What a person is offered for a denied write: the file for a content
// write, the directory for a new or removed name, and never the root,
// the kernel's trees, a repository's hooks or config, or yieldshell's own
// files or what holds them.
//
// Spec: issue 40 item 4: "a denial can be allowed once ... or for the rest of the session".
func TestWiden(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	keep := filepath.Join(dir, "keep")
	for _, d := range []string{out, keep, filepath.Join(out, "repo", ".git", "hooks"), filepath.Join(keep, "sub")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	file := filepath.Join(out, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "nowhere"), filepath.Join(out, "dangling")); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		op, path, want string // want "": not offered
	}{
		{"open", file, file},
		{"truncate", file, file},
		{"chmod", file, file},
		{"open", filepath.Join(out, "new"), out},
		{"unlink", file, out},
		{"rename", file, out},
		{"mkdir", filepath.Join(out, "d"), out},
		{"mkdir", filepath.Join(out, "missing", "d"), ""},
		{"open", filepath.Join(out, "dangling"), ""},
		{"open", "/newfile", ""},
		{"mkdir", "/x", ""},
		{"open", "/proc/self/attr/current", ""},
		{"open", "/dev/shm/x", ""},
		{"open", filepath.Join(out, "repo", ".git", "hooks", "pre-commit"), ""},
		{"open", filepath.Join(out, "repo", ".git", "config"), ""},
		{"symlink", filepath.Join(out, "repo", ".git2"), filepath.Join(out, "repo")},
		{"symlink", filepath.Join(out, ".git"), ""},
		{"open", filepath.Join(keep, "sub", "f"), ""},
		{"mkdir", filepath.Join(keep, "sub"), ""},
		{"open", filepath.Join(dir, "f"), ""}, // dir holds keep
		{"open", "relative", ""},
	} {
		got, ok := Widen(c.op, c.path, []string{keep})
		if got != c.want || ok != (c.want != "") {
			t.Errorf("Widen(%s, %s) = %q, %v; want %q", c.op, c.path, got, ok, c.want)
		}
	}
}
