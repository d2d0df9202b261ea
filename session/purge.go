package session

import "time"

// startJanitor starts the goroutine that forgets finished processes once
// they ended longer ago than YIELDSHELL_PURGE_AFTER_MS, so that a
// long-lived server's memory stays bounded. Shutdown stops and joins it.
func (m *Manager) startJanitor() {
	age := time.Duration(m.cfg.PurgeAfterMs) * time.Millisecond
	if age <= 0 {
		return
	}
	// Records go at most a tenth of their age (and never more than 10 s)
	// late.
	every := min(max(age/10, 10*time.Millisecond), 10*time.Second)
	m.janitor.Go(func() {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				if n := m.Cleanup(age, age); n > 0 {
					m.log.Debug("purged finished processes", "count", n)
				}
			case <-m.quit:
				return
			}
		}
	})
}
