package session

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/yieldshell/yieldshell/prompt"
)

// A follower that waits again with the reads it saw (Until.Seen) is woken
// by output that came between its two waits; without Seen that output is
// counted as already there.
func TestAwaitSeen(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := bareProcess(&fakeProber{start: time.Now(), activity: prompt.Busy})
		ctx := context.Background()
		p.emit("one\n")
		o := p.Await(ctx, time.Now().Add(time.Second), Until{Next: true})
		if o.Reason != ReasonDeadline || o.Reads != 1 {
			t.Fatalf("first wait: %+v", o)
		}
		p.emit("two\n") // between the waits
		if o := p.Await(ctx, time.Now().Add(time.Second), Until{Next: true}); o.Reason != ReasonDeadline {
			t.Errorf("without Seen: %+v, want the deadline", o)
		}
		o2 := p.Await(ctx, time.Now().Add(time.Second), Until{Next: true, Seen: &o.Reads})
		if o2.Reason != ReasonOutput || o2.Reads != 2 {
			t.Errorf("with Seen: %+v, want output with 2 reads", o2)
		}
		go func() {
			time.Sleep(100 * time.Millisecond) // in the bubble: fake time
			p.emit("three\n")
		}()
		start := time.Now()
		o3 := p.Await(ctx, time.Now().Add(time.Second), Until{Next: true, Seen: &o2.Reads})
		if o3.Reason != ReasonOutput || o3.Reads != 3 || time.Since(start) != 100*time.Millisecond {
			t.Errorf("waiting for more: %+v after %v", o3, time.Since(start))
		}
	})
}

// Changes is closed by the next start, end or forget, and not before.
func TestManagerChanges(t *testing.T) {
	var c changes
	first := c.next()
	if c.next() != first {
		t.Error("two channels for one change")
	}
	select {
	case <-first:
		t.Fatal("closed before any change")
	default:
	}
	c.signal()
	<-first
	if c.next() == first {
		t.Error("the channel of a past change")
	}
	c.signal() // with no follower
	c.signal()
}
