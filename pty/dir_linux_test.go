package pty

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// The command starts in the directory its path named when it was opened,
// following no link: a component that is a symbolic link by then (swapped
// in after policy resolved the path) fails the start, and no descriptor
// is left open either way.
func TestStartFollowsNoLinkInDir(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	real := filepath.Join(base, "real", "sub")
	if err := os.MkdirAll(real, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(base, "real"), filepath.Join(base, "link")); err != nil {
		t.Fatal(err)
	}
	r := newTestReaper(t)
	_, _ = r.Start(Options{Path: "/bin/true", Dir: real}) // the runtime's own first opens
	fds := countFDs(t)
	for _, dir := range []string{filepath.Join(base, "link", "sub"), filepath.Join(base, "link")} {
		p, err := r.Start(Options{Path: "/bin/true", Dir: dir})
		if err == nil {
			_ = p.Signal(syscall.SIGKILL)
			_ = p.Close()
			t.Fatalf("Start in %s (through a link) succeeded", dir)
		}
		if !errors.Is(err, unix.ENOTDIR) && !errors.Is(err, unix.ELOOP) {
			t.Errorf("Start in %s: %v, want ENOTDIR or ELOOP", dir, err)
		}
	}
	p, err := r.Start(Options{Path: "/bin/sleep", Args: []string{"sleep", "30"}, Dir: real})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Signal(syscall.SIGKILL); _ = p.Close() })
	if cwd, err := os.Readlink("/proc/" + strconv.Itoa(p.Pid()) + "/cwd"); err != nil || cwd != real {
		t.Errorf("the child's cwd is %q (%v), want %q", cwd, err, real)
	}
	_ = p.Signal(syscall.SIGKILL)
	<-p.Done()
	_ = p.Close()
	if got := countFDs(t); got != fds {
		t.Errorf("open fds %d -> %d", fds, got)
	}
}
