package pty

// histCap is how much of the newest input an inputHistory keeps: more than
// a line editor leaves unread in practice. Unread input older than that is
// taken as not typed.
const histCap = 4096

// inputHistory keeps the newest bytes written to a process's input, each
// with its author: typed (by the agent or a person) or a reply of the
// terminal's to a query. The terminal's input queue is first in, first
// out, so what it holds unread is the tail of the history.
type inputHistory struct {
	b     []byte
	reply []bool // reply[i]: b[i] was part of a reply
}

// add records b, written by a reply or typed.
func (h *inputHistory) add(b []byte, reply bool) {
	if len(b) > histCap {
		b = b[len(b)-histCap:]
	}
	if len(h.b)+len(b) > 2*histCap {
		keep := max(0, histCap-len(b))
		h.b = append(h.b[:0], h.b[len(h.b)-keep:]...)
		h.reply = append(h.reply[:0], h.reply[len(h.reply)-keep:]...)
	}
	h.b = append(h.b, b...)
	for range b {
		h.reply = append(h.reply, reply)
	}
}

// typedTail returns the typed bytes among the last n written, in order,
// and whether all n were typed (n is more than the history holds: the
// oldest are not known, and count as not typed).
func (h *inputHistory) typedTail(n int) (typed []byte, all bool) {
	all = n <= len(h.b)
	start := max(0, len(h.b)-n)
	for i := start; i < len(h.b); i++ {
		if h.reply[i] {
			all = false
		} else {
			typed = append(typed, h.b[i])
		}
	}
	return typed, all
}
