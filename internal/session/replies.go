package session

import (
	"context"
	"sync"

	"github.com/yieldshell/yieldshell/screen"
)

// replyOrigin is who asked a query: the terminal's foreground process
// group when the query was read (0: not known, as on Windows), how many
// times an integrated shell had come back to its prompt by then
// (markState.returns), and whether the shell sat idle at its prompt then
// (markState.idle): its line editor was the reader, so the query came
// from someone else, such as a background job.
type replyOrigin struct {
	pgrp    int
	returns uint64
	idle    bool
}

// replyBatch is replies to queries of one origin, in order.
type replyBatch struct {
	from replyOrigin
	b    []byte
}

// replyQueue carries the terminal's replies to a PTY-mode program's queries
// (cursor position, device attributes, colours: screen/reply.go) from the
// output reader to the program's input, in order, each with the origin of
// its query. The reader must never wait for a program that does not read
// its input, so push never blocks: the queue holds at most screen.ReplyCap
// bytes, and replies that do not fit are dropped whole and counted. One
// writer goroutine, owned by the Process, drains it into the terminal
// through a deliver function that may drop a batch (its program is gone
// from the foreground, or never read it).
//
// Safe for concurrent use.
type replyQueue struct {
	mu      sync.Mutex
	pending []replyBatch
	size    int  // bytes in pending
	dropped int  // replies dropped because the queue was full
	gone    bool // the input is closed: nothing is queued any more
	// delivering: the writer holds a batch it has not written or dropped
	// yet.
	delivering bool
	// written counts the batches written to the terminal; read, how many
	// of them were known to be read out of it (outstanding).
	written, read uint64
	wake          chan struct{}
	done          chan struct{} // closed when the writer returns
}

func newReplyQueue() *replyQueue {
	return &replyQueue{wake: make(chan struct{}, 1), done: make(chan struct{})}
}

// push queues the replies in b (whole escape sequences, as
// Cleaner.TakeReplies gives them) to queries of from as far as they fit,
// and drops and counts the rest.
func (q *replyQueue) push(b []byte, from replyOrigin) {
	if len(b) == 0 {
		return
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.gone {
		return
	}
	fit := len(b)
	if room := screen.ReplyCap - q.size; fit > room {
		fit = replyPrefix(b, room)
		q.dropped += countReplies(b[fit:])
	}
	if fit == 0 {
		return
	}
	if n := len(q.pending); n > 0 && q.pending[n-1].from == from {
		q.pending[n-1].b = append(q.pending[n-1].b, b[:fit]...)
	} else {
		q.pending = append(q.pending, replyBatch{from: from, b: append([]byte(nil), b[:fit]...)})
	}
	q.size += fit
	select {
	case q.wake <- struct{}{}:
	default: // the writer is already woken
	}
}

// Dropped is how many replies were dropped because the queue was full or
// the program that asked could not be given them.
func (q *replyQueue) Dropped() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.dropped
}

// outstanding reports whether replies are on their way to the program:
// queued, being delivered, or written and still unread in the terminal, as
// unread (the terminal's typeahead) tells. A program blocked reading its
// terminal then waits for them, not for input.
//
// A written reply counts until unread, asked after the write, finds
// nothing: a program seen asleep in its read before that may not have
// been scheduled since the reply came (a loaded machine), and takes it
// the moment after. Asked before the kernel is, outstanding leaves no such
// window: when it reports false, every reply written so far has been read.
func (q *replyQueue) outstanding(unread func() bool) bool {
	q.mu.Lock()
	busy, written := len(q.pending) > 0 || q.delivering, q.written
	checked := written == q.read
	q.mu.Unlock()
	if busy {
		return true
	}
	if checked {
		return false
	}
	if unread() {
		return true
	}
	q.mu.Lock()
	q.read = max(q.read, written)
	q.mu.Unlock()
	return false
}

// discard counts the replies in b as dropped.
func (q *replyQueue) discard(b []byte) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.dropped += countReplies(b)
}

// take removes and returns the oldest batch; ok is false when there is
// none.
func (q *replyQueue) take() (batch replyBatch, ok bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.pending) == 0 {
		return replyBatch{}, false
	}
	batch = q.pending[0]
	q.delivering = true
	q.pending[0] = replyBatch{}
	q.pending = q.pending[1:]
	q.size -= len(batch.b)
	return batch, true
}

// run is the writer: it hands the queued batches, oldest first, to deliver
// until ctx is done (the process ended or was closed), then closes done.
// deliver reports whether it wrote the batch; one it did not write is
// counted as dropped. A delivery that fails for any other reason than ctx
// means the input is gone; later replies are discarded.
func (q *replyQueue) run(ctx context.Context, deliver func(context.Context, replyBatch) (bool, error)) {
	defer close(q.done)
	for {
		select {
		case <-ctx.Done():
			return
		case <-q.wake:
		}
		for {
			batch, ok := q.take()
			if !ok {
				break
			}
			wrote, err := deliver(ctx, batch)
			q.mu.Lock()
			q.delivering = false
			if wrote {
				q.written++
			}
			q.mu.Unlock()
			if err != nil {
				if ctx.Err() != nil {
					return
				}
				q.mu.Lock()
				q.gone, q.pending, q.size = true, nil, 0
				q.mu.Unlock()
				break
			}
			if !wrote {
				q.discard(batch.b)
			}
		}
	}
}

// wait blocks until the writer has returned.
func (q *replyQueue) wait() { <-q.done }

// stopped reports whether the writer has returned.
func (q *replyQueue) stopped() bool {
	select {
	case <-q.done:
		return true
	default:
		return false
	}
}

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
