package session

import (
	"slices"
	"testing"
	"testing/synctest"
)

// Running lists the processes whose end is not handled yet and none of
// the ended ones kept for reading: what follows running processes (the
// resources' list, after every start and end) costs nothing per ended one.
func TestRunning(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m, e, _ := fakeManager(t, nil, nil)
		a, fa := startFake(t, m, e, spec("a", true))
		b, fb := startFake(t, m, e, spec("b", false))
		defer fb.exit(0)
		if got := m.Running(); len(got) != 2 || !slices.Contains(got, a) || !slices.Contains(got, b) {
			t.Fatalf("Running = %v, want both", got)
		}
		fa.exit(0)
		synctest.Wait()
		if got := m.Running(); len(got) != 1 || got[0] != b {
			t.Errorf("Running after a ended = %v, want b only", got)
		}
		if got := m.List(); len(got) != 2 {
			t.Errorf("List = %v, want both (a is kept for reading)", got)
		}
		m.Cleanup(0, 0)
		if got := m.Running(); len(got) != 1 || got[0] != b {
			t.Errorf("Running after cleanup = %v, want b only", got)
		}
	})
}
