package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// TestOutsideModule builds and runs a program of another module against
// the public packages (testdata/outside): it can use them without
// anything under internal/, and what they do works from outside.
func TestOutsideModule(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module of its own")
	}
	if runtime.GOOS == "windows" {
		t.Skip("the program runs a POSIX shell command")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go not on PATH")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join("testdata", "outside", "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	mod := "module example.com/outside\n\ngo 1.26.0\n\n" +
		"require github.com/yieldshell/yieldshell v0.0.0\n\n" +
		"replace github.com/yieldshell/yieldshell => " + root + "\n"
	for name, b := range map[string][]byte{"main.go": src, "go.mod": []byte(mod), "go.sum": sum} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.CommandContext(t.Context(), goBin, "run", "-mod=mod", ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod", "GOPROXY=off")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go run in an outside module: %v\n%s", err, out)
	}
	if want := "clean log\nexec works\n"; string(out) != want {
		t.Errorf("outside module printed %q, want %q", out, want)
	}
}
