// Package poll waits, in tests, for conditions the code under test gives no
// event for: a process gone from the process table, a goroutine count, a
// record purged by a timer. It polls at growing intervals up to a deadline
// and fails the test, naming what it waited for, when the deadline passes.
package poll

import (
	"testing"
	"time"
)

// Until calls cond until it reports true, and fails t with what if within
// passes first. The first check is immediate; later ones come at intervals
// growing from 1 ms to 20 ms.
func Until(t testing.TB, within time.Duration, what string, cond func() bool) {
	t.Helper()
	if !Within(within, cond) {
		t.Fatalf("%s: not within %v", what, within)
	}
}

// Within is Until without a test: it reports whether cond turned true
// before within passed.
func Within(within time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(within)
	for pause := time.Millisecond; ; pause = min(2*pause, 20*time.Millisecond) {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(pause) // the interval between checks, not a synchronisation
	}
}
