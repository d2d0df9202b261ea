package session

import (
	"testing"
	"time"
)

func TestInputWaitDebug(t *testing.T) {
	m := newTestManager(t, nil)
	for _, c := range []string{"cat", "node"} {
		p, err := m.Start(t.Context(), spec(c, true))
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		r, st := p.Await(t.Context(), time.Now().Add(3*time.Second), Until{InputWait: true})
		t.Logf("%s: %s %+v after %v; now %+v insp=%+v", c, r, st, time.Since(start), p.InputState(), p.inspect())
	}
}
