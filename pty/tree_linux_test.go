package pty

import (
	"context"
	"os"
	"os/exec"
	"slices"
	"testing"
	"time"
)

// Members finds a group's live members and tagged processes outside it,
// and AwaitExit returns when one of them exits.
func TestMembersAndAwaitExit(t *testing.T) {
	cmd := exec.Command("sleep", "30")
	cmd.Env = append(os.Environ(), "PTY_TREE_TEST=x1")
	if err := cmd.Start(); err != nil {
		t.Skip("sleep: ", err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	pid := cmd.Process.Pid
	if got := Members(-1, "PTY_TREE_TEST", "x1"); !slices.Equal(got, []int{pid}) {
		t.Fatalf("tagged members = %v, want [%d]", got, pid)
	}
	if !TreeAlive(1<<30, "PTY_TREE_TEST", "x1") {
		t.Fatal("TreeAlive is false while a tagged process lives")
	}
	if got := Members(-1, "PTY_TREE_TEST", "other"); len(got) != 0 {
		t.Fatalf("members with another tag = %v", got)
	}
	done := make(chan error, 1)
	go func() { done <- AwaitExit(t.Context(), []int{pid}) }()
	select {
	case err := <-done:
		t.Fatalf("AwaitExit returned %v before the exit", err)
	case <-time.After(50 * time.Millisecond): // only to give it a chance to return wrongly
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("AwaitExit did not return after the exit")
	}
	if got := Members(-1, "PTY_TREE_TEST", "x1"); len(got) != 0 {
		t.Fatalf("members after the exit = %v", got)
	}
	if TreeAlive(1<<30, "PTY_TREE_TEST", "x1") {
		t.Fatal("TreeAlive after the exit")
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := AwaitExit(ctx, []int{os.Getpid()}); err == nil {
		t.Fatal("AwaitExit with a cancelled context returned nil")
	}
}

// BenchmarkTreeAlive is what each command's end costs, as a child
// subreaper (as the server runs).
func BenchmarkTreeAlive(b *testing.B) {
	if err := SetChildSubreaper(); err != nil {
		b.Skip(err)
	}
	for b.Loop() {
		TreeAlive(1<<30, "YIELDSHELL_TAG", "none")
	}
}

// BenchmarkMembers is the scan each command's end costs: as a child
// subreaper (as the server runs) only the server's descendants'
// environments are read.
func BenchmarkMembers(b *testing.B) {
	b.Run("every_environment", func(b *testing.B) {
		for b.Loop() {
			Members(1<<30, "YIELDSHELL_TAG", "none")
		}
	})
	b.Run("subreaper", func(b *testing.B) {
		if err := SetChildSubreaper(); err != nil {
			b.Skip(err)
		}
		for b.Loop() {
			Members(1<<30, "YIELDSHELL_TAG", "none")
		}
	})
}
