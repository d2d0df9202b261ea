package prompt

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/yieldshell/yieldshell/internal/poll"
	"github.com/yieldshell/yieldshell/internal/proc"
)

// TestReadTreeHoldsTheTree: as the child subreaper, the table walked down
// from the test holds what the machine's whole table says of a command's
// tree (the command, a child in its group, a grandchild that left for a
// session of its own with its children, and an orphan handed to the test
// when its parent ended), and nothing that does not descend from the test.
func TestReadTreeHoldsTheTree(t *testing.T) {
	if !proc.Subreaper() {
		t.Fatal("TestMain makes the test binary the child subreaper, as the server is")
	}
	tag := fmt.Sprintf("PROMPT_TABLE_TEST=%d", os.Getpid())
	r := startTTY(t, tag, nil, "sh", "-c",
		"sleep 600 & setsid sh -c 'sleep 600 & sleep 600; :' & (sleep 600 &); echo started; wait")
	r.await(t, "started", 10*time.Second)
	const want = 6 // sh, its sleep, the setsid sh and its two, the orphan
	self := os.Getpid()
	var env proc.EnvReader
	tagged := func(es []procEntry) []procEntry {
		var out []procEntry
		for _, e := range es {
			if holdsVar(env.Read(e.pid), tag) {
				out = append(out, e)
			}
		}
		slices.SortFunc(out, func(a, b procEntry) int { return a.pid - b.pid })
		return out
	}
	var tree, whole []procEntry
	if !poll.Within(10*time.Second, func() bool {
		tree, whole = tagged(readTree(nil, self)), tagged(readWhole(nil))
		return len(tree) == want && slices.Equal(tree, whole)
	}) {
		t.Fatalf("the tree's processes walked down from the test:\n%v\nin the whole table:\n%v\nwant %d of each, the same", tree, whole, want)
	}
	orphans := 0
	for _, e := range tree {
		if e.ppid == self && e.pid != r.in.Session {
			orphans++
		}
	}
	if orphans != 1 {
		t.Errorf("%d of the tree's processes were handed to the test, want 1 (the orphan): %v", orphans, tree)
	}
	// Nothing else: every process walked to descends from the test.
	parent := map[int]int{}
	for _, e := range readWhole(nil) {
		parent[e.pid] = e.ppid
	}
	for _, e := range readTree(nil, self) {
		pid := e.pid
		for pid != self && pid > 1 {
			pp, ok := parent[pid]
			if !ok {
				break // started or ended between the two reads
			}
			pid = pp
		}
		if pid > 0 && pid <= 1 {
			t.Errorf("process %d (parent %d) was walked to but does not descend from the test", e.pid, e.ppid)
		}
	}
}

// BenchmarkReadTable measures reading the table a probe looks at: the
// machine's whole table against the server's descendants walked down
// from it (a command of two processes here), on this machine as it is
// and with 500 more processes that are not the server's (the rest of a
// shared or busy machine).
func BenchmarkReadTable(b *testing.B) {
	r := startTTY(b, "", nil, "sh", "-c", "sleep 600 & echo started; wait")
	r.await(b, "started", 10*time.Second)
	self := os.Getpid()
	for _, more := range []int{0, 500} {
		if more > 0 {
			startStrangers(b, more)
		}
		b.Run(fmt.Sprintf("whole/+%d", more), func(b *testing.B) {
			var dst []procEntry
			for b.Loop() {
				dst = readWhole(dst[:0])
			}
			b.ReportMetric(float64(len(dst)), "procs")
		})
		b.Run(fmt.Sprintf("tree/+%d", more), func(b *testing.B) {
			var dst []procEntry
			for b.Loop() {
				dst = readTree(dst[:0], self)
			}
			b.ReportMetric(float64(len(dst)), "procs")
		})
	}
}

// startStrangers starts n sleeping processes that do not descend from the
// test: their parent ends while the test is, for that moment, not the
// child subreaper, so that init adopts them. They are ended (and init
// reaps them) when the benchmark ends.
func startStrangers(b *testing.B, n int) {
	b.Helper()
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0); err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command("sh", "-c", fmt.Sprintf("i=0; while [ $i -lt %d ]; do sleep 600 & i=$((i+1)); done", n))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	err := cmd.Run()
	if err2 := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err2 != nil {
		b.Fatal(err2)
	}
	pgid := cmd.Process.Pid
	b.Cleanup(func() {
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		if !poll.Within(10*time.Second, func() bool { return syscall.Kill(-pgid, 0) != nil }) {
			b.Errorf("the strangers of group %d outlived the benchmark", pgid)
		}
	})
	if err != nil {
		b.Fatal(err)
	}
}
