package session

import "time"

// purgeInterval is how often the janitor looks for records that ended more
// than age ago: they go at most a tenth of their age (and never more than
// 10 s) late.
func purgeInterval(age time.Duration) time.Duration {
	return min(max(age/10, 10*time.Millisecond), 10*time.Second)
}

// tick calls f every interval until quit is closed.
func tick(quit <-chan struct{}, interval time.Duration, f func()) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			f()
		case <-quit:
			return
		}
	}
}
