package app

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
)

// gcFloor is the heap the collector lets grow to before it runs, however
// small the live heap. A server's live heap is a few MB, and every tool
// call leaves tens of KB of garbage (JSON, schema validation): collecting
// once garbage reached half the live heap ran the collector every few
// calls, and its work and wake-ups made a ps round trip 3 to 4 times as
// long as without it (1.4 ms against 0.35 ms over stdio, measured side by
// side on 2 busy cores).
const gcFloor = 32 << 20

// gcMinPercent is the collector's percentage once the live heap is large:
// it collects when garbage reaches half of what is retained (the retained
// output and screens of every process), so that resident memory stays
// close to what is retained.
const gcMinPercent = 50

// gcTuner sets the collector's percentage after every collection from the
// live heap: gcMinPercent, or more while that would collect below gcFloor.
// It runs from a finalizer the collector calls once per cycle; Stop ends
// it. GOGC, when set, decides instead.
type gcTuner struct {
	stopped atomic.Bool
	percent int
}

// gcSentinel is garbage made on purpose: its finalizer runs after the
// collection that found it, and makes the next one.
type gcSentinel struct{ t *gcTuner }

// startGCTuner starts tuning the collector, unless GOGC is set (nil then).
func startGCTuner() *gcTuner {
	if os.Getenv("GOGC") != "" {
		return nil
	}
	t := &gcTuner{}
	t.adjust()
	t.arm()
	return t
}

func (t *gcTuner) arm() {
	runtime.SetFinalizer(&gcSentinel{t}, func(s *gcSentinel) {
		if s.t.stopped.Load() {
			return
		}
		s.t.adjust()
		s.t.arm()
	})
}

// Stop ends the tuning (the percentage stays as last set). Nil-safe.
func (t *gcTuner) Stop() {
	if t != nil {
		t.stopped.Store(true)
	}
}

func (t *gcTuner) adjust() {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	var live uint64
	if s[0].Value.Kind() == metrics.KindUint64 {
		live = s[0].Value.Uint64()
	}
	if p := gcPercent(live, gcFloor); p != t.percent {
		t.percent = p
		debug.SetGCPercent(p)
	}
}

// gcPercent is the percentage that lets a heap of live bytes grow to at
// least floor before the next collection, and by at least gcMinPercent.
func gcPercent(live, floor uint64) int {
	if live == 0 {
		live = 1 << 20
	}
	if live+live*gcMinPercent/100 >= floor {
		return gcMinPercent
	}
	return int((floor - live) * 100 / live)
}
