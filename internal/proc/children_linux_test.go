package proc

import (
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"golang.org/x/sys/unix"
)

// TestChildrenOfEveryThread: a child's parent is the thread that forked
// it, and a Go program forks from whichever thread runs the goroutine:
// children started from four threads are each listed under their own
// thread, and all of them by ChildrenOf.
func TestChildrenOfEveryThread(t *testing.T) {
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("sleep is not installed")
	}
	const n = 4
	type started struct{ tid, pid int }
	out := make(chan started, n)
	done := make(chan struct{})
	var wg sync.WaitGroup
	t.Cleanup(wg.Wait)
	defer close(done)
	for range n {
		wg.Go(func() {
			// Locked, the goroutine keeps its own thread, alive until the
			// test has looked (a thread's end hands its children to another).
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			cmd := exec.Command(sleep, "600")
			if err := cmd.Start(); err != nil {
				out <- started{unix.Gettid(), -1}
				return
			}
			out <- started{unix.Gettid(), cmd.Process.Pid}
			<-done
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		})
	}
	var pids []int
	tids := map[int]bool{}
	for range n {
		s := <-out
		if s.pid < 0 {
			t.Fatal("a child could not be started")
		}
		pids, tids[s.tid] = append(pids, s.pid), true
		own, err := readFile(root+"/self/task/"+strconv.Itoa(s.tid)+"/children", nil)
		if err != nil || !slices.Contains(strings.Fields(string(own)), strconv.Itoa(s.pid)) {
			t.Errorf("child %d is not listed under its thread %d: %q (%v)", s.pid, s.tid, own, err)
		}
	}
	if len(tids) != n {
		t.Fatalf("the children were started from %d threads, want %d", len(tids), n)
	}
	got := ChildrenOf(os.Getpid())
	for _, pid := range pids {
		if !slices.Contains(got, pid) {
			t.Errorf("ChildrenOf lists %v, without child %d", got, pid)
		}
	}
}
