package poll

import (
	"testing"
	"testing/synctest"
	"time"
)

func TestWithin(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		if !Within(time.Second, func() bool { return time.Since(start) >= 100*time.Millisecond }) {
			t.Fatal("a condition that turns true after 100 ms was not seen within 1 s")
		}
		if late := time.Since(start) - 100*time.Millisecond; late > 20*time.Millisecond {
			t.Errorf("seen %v late; checks are at most 20 ms apart", late)
		}
		start = time.Now()
		if Within(50*time.Millisecond, func() bool { return false }) {
			t.Fatal("a condition that never holds was reported true")
		}
		if took := time.Since(start); took < 50*time.Millisecond || took > 70*time.Millisecond {
			t.Errorf("gave up after %v, want 50 ms and at most one interval more", took)
		}
	})
}
