package mcptool

import (
	"math"
	"time"
)

// maxMillis is the longest time a time.Duration holds, in milliseconds
// (about 292 years).
const maxMillis = math.MaxInt64 / int64(time.Millisecond)

// Millis is a count of milliseconds from a tool's arguments as a duration.
// A count too large for a duration is the longest one (and one too far
// below zero the most negative) rather than wrapping around: an agent that
// asks to wait 9227000000000 ms means a long time, not none.
func Millis(n int) time.Duration {
	switch {
	case int64(n) > maxMillis:
		return math.MaxInt64
	case int64(n) < -maxMillis:
		return math.MinInt64
	}
	return time.Duration(n) * time.Millisecond
}
