package pty

import "sync/atomic"

// holder is a reader's share in its process's count of readers that hold
// output: what a read returned counts until the caller comes back for
// more (it has handed the bytes on), so that [Process.Pending] sees bytes
// that have left the system but not reached the caller.
type holder struct {
	held    *atomic.Int32 // the process's count
	holding bool
}

func (h *holder) hold(on bool) {
	if on == h.holding {
		return
	}
	h.holding = on
	if on {
		h.held.Add(1)
	} else {
		h.held.Add(-1)
	}
}
