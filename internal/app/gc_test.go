package app

import "testing"

func TestGCPercent(t *testing.T) {
	const mb = 1 << 20
	for _, c := range []struct {
		live uint64
		want int
	}{
		{0, 3100},      // unknown: taken as 1 MB
		{1 * mb, 3100}, // 1 MB may grow by 31 MB
		{4 * mb, 700},  // 4 + 28
		{16 * mb, 100}, // 16 + 16
		{20 * mb, 60},  // 20 + 12
		{22 * mb, 50},  // 22 + 11 reaches the floor by the minimum
		{500 * mb, 50}, // large heaps: half of what is retained
	} {
		if got := gcPercent(c.live, 32*mb); got != c.want {
			t.Errorf("gcPercent(%d MB) = %d, want %d", c.live/mb, got, c.want)
		}
	}
}
