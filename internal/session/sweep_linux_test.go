package session

import (
	"bytes"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/yieldshell/yieldshell/internal/poll"
)

// TestSweepInBackground: the start-up sweep, which now runs on a goroutine
// of the Manager while the Manager already starts commands, ends a process
// whose tag names a server that is gone and leaves the Manager's own
// commands alone, running or starting while it sweeps.
func TestSweepInBackground(t *testing.T) {
	m := newTestManager(t, nil)
	// The shell carries this Manager's tag; the sleep it execs carries the
	// tag of a server that never lived (no pid 2^22 started at tick 1).
	orphan, err := m.Start(t.Context(), spec("exec env "+tagKey+"=4194304:1:proc_orphan sleep 30", false))
	if err != nil {
		t.Fatal(err)
	}
	own, err := m.Start(t.Context(), spec("sleep 30", true))
	if err != nil {
		t.Fatal(err)
	}
	// Every server on the machine sweeps at start-up (those of a
	// concurrent end-to-end suite too), and any of them may end the
	// orphan before it is seen carrying the tag: that is a sweep's work
	// done as well.
	poll.Until(t, 10*time.Second, "the orphan to carry the dead server's tag", func() bool {
		return environHas(orphan.Pid, tagKey+"=4194304:1:proc_orphan") || orphan.Info().Status != Running
	})
	m.SweepOrphans()
	// Commands started while the sweep runs are this server's too.
	var during []*Process
	for range 5 {
		p, err := m.Start(t.Context(), spec("sleep 30", false))
		if err != nil {
			t.Fatal(err)
		}
		during = append(during, p)
	}
	if r := orphan.WaitEnd(t.Context(), time.Now().Add(10*time.Second)); r != ReasonExited {
		t.Fatalf("the orphan was not ended: %s", r)
	}
	if in := orphan.Info(); in.Signal != "SIGKILL" {
		t.Errorf("the orphan ended with %+v, want SIGKILL", in)
	}
	// A second sweep, run to its end beside them.
	sweepOrphans(t.Context(), m.log)
	for _, p := range append(during, own) {
		if in := p.Info(); in.Status != Running {
			t.Errorf("%s (%s) was ended by the sweep: %+v", p.ID, in.Command, in)
		}
	}
}

// environHas reports whether process pid's environment holds kv.
func environHas(pid int, kv string) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	return err == nil && bytes.Contains(append([]byte{0}, b...), []byte("\x00"+kv+"\x00"))
}
