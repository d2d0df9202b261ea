//go:build unix

package pty

import (
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/yieldshell/yieldshell/internal/poll"
)

func TestTaggedFindsEscapedDescendants(t *testing.T) {
	r := newTestReaper(t)
	tag := "YS_TEST_TAG_" + strconv.Itoa(os.Getpid())
	p, err := r.Start(Options{Path: "/bin/sh", Args: []string{"sh", "-c", "setsid sleep 30 & echo $!; wait"}, Dir: "/",
		Env: append(os.Environ(), tag+"=v1")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for pid := range Tagged(t.Context(), tag) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		_ = p.Signal(syscall.SIGKILL)
		p.Close()
	})
	waitFor(t, "Tagged to find the shell and its setsid child", func() bool {
		got := Tagged(t.Context(), tag)
		return len(got) >= 2 && got[p.Pid()] == "v1"
	})
	st, err := StartTime(p.Pid())
	if err != nil || st == 0 {
		t.Errorf("StartTime = %d, %v", st, err)
	}
	if _, err := StartTime(1 << 30); err == nil {
		t.Error("StartTime of a missing pid succeeded")
	}
}

// BenchmarkTagged measures the /proc scan that stop, timeout, shutdown and
// the start-up sweep pay, next to listing /proc alone.
func BenchmarkTagged(b *testing.B) {
	b.Run("scan", func(b *testing.B) {
		for b.Loop() {
			Tagged(b.Context(), "YIELDSHELL_TAG")
		}
	})
	b.Run("baseline_readdir", func(b *testing.B) {
		for b.Loop() {
			if _, err := os.ReadDir("/proc"); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// waitFor polls cond, failing after 10 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	poll.Until(t, 10*time.Second, what, cond)
}
