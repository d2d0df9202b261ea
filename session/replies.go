package session

import (
	"context"
	"sync"

	"github.com/yieldshell/yieldshell/screen"
)

// replyQueue carries the terminal's replies to a PTY-mode program's queries
// (cursor position, device attributes, colours: screen/reply.go) from the
// output reader to the program's input, in order. The reader must never
// wait for a program that does not read its input, so push never blocks:
// the queue holds at most screen.ReplyCap bytes, and replies that do not fit
// are dropped whole and counted. One writer goroutine, owned by the Process,
// drains it into the terminal.
//
// Safe for concurrent use.
type replyQueue struct {
	mu      sync.Mutex
	pending []byte
	dropped int  // replies dropped because the queue was full
	gone    bool // the input is closed: nothing is queued any more
	wake    chan struct{}
	done    chan struct{} // closed when the writer returns
}

func newReplyQueue() *replyQueue {
	return &replyQueue{wake: make(chan struct{}, 1), done: make(chan struct{})}
}

// push queues the replies in b (whole escape sequences, as
// Cleaner.TakeReplies gives them) as far as they fit, and drops and counts
// the rest.
func (q *replyQueue) push(b []byte) {
	if len(b) == 0 {
		return
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.gone {
		return
	}
	fit := len(b)
	if room := screen.ReplyCap - len(q.pending); fit > room {
		fit = replyPrefix(b, room)
		q.dropped += countReplies(b[fit:])
	}
	if fit == 0 {
		return
	}
	q.pending = append(q.pending, b[:fit]...)
	select {
	case q.wake <- struct{}{}:
	default: // the writer is already woken
	}
}

// Dropped is how many replies were dropped because the queue was full.
func (q *replyQueue) Dropped() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.dropped
}

// take removes and returns what is queued, reusing buf.
func (q *replyQueue) take(buf []byte) []byte {
	q.mu.Lock()
	defer q.mu.Unlock()
	buf = append(buf[:0], q.pending...)
	q.pending = q.pending[:0]
	return buf
}

// run is the writer: it writes the queued replies with write until ctx is
// done (the process ended or was closed), then closes done. A write that
// fails for any other reason means the input is gone; later replies are
// discarded.
func (q *replyQueue) run(ctx context.Context, write func(context.Context, []byte) error) {
	defer close(q.done)
	var buf []byte
	for {
		select {
		case <-ctx.Done():
			return
		case <-q.wake:
		}
		buf = q.take(buf)
		if len(buf) == 0 {
			continue
		}
		if err := write(ctx, buf); err != nil {
			if ctx.Err() != nil {
				return
			}
			q.mu.Lock()
			q.gone, q.pending = true, nil
			q.mu.Unlock()
		}
	}
}

// wait blocks until the writer has returned.
func (q *replyQueue) wait() { <-q.done }

// replyStart reports whether b[i] starts a reply: every reply begins with
// ESC, and the only other ESC in one is that of a string terminator (ESC \).
func replyStart(b []byte, i int) bool {
	return b[i] == 0x1b && (i+1 >= len(b) || b[i+1] != '\\')
}

// replyPrefix is the length of the longest run of whole replies at the
// start of b that is at most n bytes long.
func replyPrefix(b []byte, n int) int {
	if n >= len(b) {
		return len(b)
	}
	for i := n; i > 0; i-- {
		if replyStart(b, i) {
			return i
		}
	}
	return 0
}

// countReplies counts the replies in b.
func countReplies(b []byte) int {
	n := 0
	for i := range b {
		if replyStart(b, i) {
			n++
		}
	}
	return n
}
