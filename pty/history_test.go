package pty

import (
	"bytes"
	"testing"
)

// The unread input is the tail of what was written; its typed bytes are
// kept, in order, and a reply among them (or bytes older than the history)
// says it was not all typed.
func TestInputHistoryTypedTail(t *testing.T) {
	var h inputHistory
	h.add([]byte("ls\r"), false)
	h.add([]byte("\x1b[0n"), true)
	h.add([]byte("cd"), false)
	for _, c := range []struct {
		n     int
		typed string
		all   bool
	}{
		{0, "", true}, {2, "cd", true}, {3, "cd", false}, {6, "cd", false},
		{9, "ls\rcd", false}, {10, "ls\rcd", false},
	} {
		typed, all := h.typedTail(c.n)
		if string(typed) != c.typed || all != c.all {
			t.Errorf("typedTail(%d) = %q, %v; want %q, %v", c.n, typed, all, c.typed, c.all)
		}
	}
	// Bounded: the newest histCap bytes at least are kept, no more than
	// twice that.
	for range 3 * histCap / 100 {
		h.add(bytes.Repeat([]byte("x"), 100), false)
	}
	h.add([]byte("end"), true)
	if len(h.b) > 2*histCap || len(h.b) < histCap || len(h.reply) != len(h.b) {
		t.Fatalf("history holds %d bytes (%d authors), want %d to %d", len(h.b), len(h.reply), histCap, 2*histCap)
	}
	if typed, all := h.typedTail(histCap); all || len(typed) != histCap-3 {
		t.Errorf("typedTail(histCap) = %d bytes, %v; want %d, false", len(typed), all, histCap-3)
	}
}
