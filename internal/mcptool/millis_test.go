package mcptool

import (
	"math"
	"testing"
	"time"
)

func TestMillis(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want time.Duration
	}{
		{0, 0},
		{1, time.Millisecond},
		{-1, -time.Millisecond},
		{300000, 5 * time.Minute},
		{9223372036854, 9223372036854 * time.Millisecond}, // the largest that fits
		{9223372036855, math.MaxInt64},
		{9227000000000, math.MaxInt64}, // found by FuzzLoad, as a variable
		{math.MaxInt, math.MaxInt64},
		{-9223372036855, math.MinInt64},
		{math.MinInt, math.MinInt64},
	} {
		if got := Millis(tc.n); got != tc.want {
			t.Errorf("Millis(%d) = %v, want %v", tc.n, got, tc.want)
		}
	}
}
