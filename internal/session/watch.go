package session

import "sync"

// changes tells followers that the set of processes or one's status
// changed: a process was registered, ended or forgotten. It is a channel
// closed and replaced on every change, as a Process's own state changes
// are; the zero value is ready to use.
type changes struct {
	mu sync.Mutex
	ch chan struct{}
}

// next returns the channel the next change closes.
func (c *changes) next() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ch == nil {
		c.ch = make(chan struct{})
	}
	return c.ch
}

// signal wakes every follower.
func (c *changes) signal() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ch != nil {
		close(c.ch)
		c.ch = nil
	}
}

// Changes returns a channel that is closed at the next change to the set
// of processes or to one's status: a start, an end, a process forgotten
// (cleanup, retention). A follower takes the channel, then looks at
// [Manager.List], and waits on the channel before it looks again: nothing
// that happens after it took the channel is missed.
func (m *Manager) Changes() <-chan struct{} { return m.watch.next() }
