package session

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/yieldshell/yieldshell/internal/outlog"
	"github.com/yieldshell/yieldshell/prompt"
	"github.com/yieldshell/yieldshell/screen"
)

// The PTY pipeline queues the replies to the queries in the output, in
// order and computed where the cursor is, and keeps them out of the log;
// the pipe pipeline answers nothing.
func TestPipelineQueuesReplies(t *testing.T) {
	o := newTerminalPipeline(80, 24, nil)
	l := outlog.New(1 << 20)
	var sc scratch
	o.append(l, Stdout, []byte("ab\x1b[6n\r\nc\x1b[c"), &sc, false)
	o.append(l, Stdout, []byte("\x1b]11;?\x07d\n"), &sc, false)
	want := "\x1b[1;3R" + "\x1b[?62;22c" + "\x1b]11;" + screen.ColourBackground + "\x07"
	if got := string(takeAll(o.replies)); got != want {
		t.Errorf("queued replies = %q, want %q", got, want)
	}
	o.flush(l)
	if got := string(l.ReadFrom(0, 1<<20, Both).Stdout); got != "ab\ncd\n" {
		t.Errorf("log = %q, want the text without queries or replies", got)
	}

	var pipe pipeline
	pipe.append(l, Stdout, []byte("\x1b[6n"), &sc, false)
	if pipe.replies != nil || pipe.droppedReplies() != 0 {
		t.Errorf("pipe mode queued replies")
	}
}

// The queue holds at most screen.ReplyCap bytes of whole replies; the rest
// are dropped and counted, by the cleaner or by the queue.
func TestReplyQueueIsBounded(t *testing.T) {
	o := newTerminalPipeline(80, 24, nil)
	l := outlog.New(1 << 20)
	var sc scratch
	const queries = 10000
	flood := bytes.Repeat([]byte("\x1b[6n"), 100)
	for range queries / 100 {
		o.append(l, Stdout, flood, &sc, false)
	}
	got := takeAll(o.replies)
	if len(got) > screen.ReplyCap {
		t.Errorf("queue holds %d bytes, more than ReplyCap %d", len(got), screen.ReplyCap)
	}
	const reply = "\x1b[1;1R"
	if len(got)%len(reply) != 0 || strings.ReplaceAll(string(got), reply, "") != "" {
		t.Errorf("queue holds something other than whole replies: %q", got[max(0, len(got)-20):])
	}
	if kept, dropped := len(got)/len(reply), o.droppedReplies(); kept+dropped != queries {
		t.Errorf("kept %d + dropped %d replies, want %d in all", kept, dropped, queries)
	}
}

func TestReplyPrefix(t *testing.T) {
	b := []byte("\x1b[1;1R\x1bP>|yieldshell\x1b\\\x1b[0n")
	for _, c := range []struct{ n, want int }{
		{0, 0}, {5, 0}, {6, 6}, {7, 6}, {21, 6}, {22, 22}, {25, 22}, {26, 26}, {100, 26},
	} {
		if got := replyPrefix(b, c.n); got != c.want {
			t.Errorf("replyPrefix(%q, %d) = %d, want %d", b, c.n, got, c.want)
		}
	}
	if n := countReplies(b); n != 3 {
		t.Errorf("countReplies = %d, want 3", n)
	}
}

// The writer writes what is queued, in order; a writer stuck on a program
// that does not read never holds up push, and it stops when its context
// ends.
func TestReplyWriter(t *testing.T) {
	q := newReplyQueue()
	ctx, cancel := context.WithCancel(t.Context())
	var mu sync.Mutex
	var written []byte
	first := make(chan struct{}, 1) // buffered: the writer may get there before the test waits
	write := func(ctx context.Context, batch replyBatch) (bool, error) {
		mu.Lock()
		written = append(written, batch.b...)
		mu.Unlock()
		select {
		case first <- struct{}{}:
		default:
		}
		<-ctx.Done() // a program that never reads its input
		return false, ctx.Err()
	}
	go q.run(ctx, write)
	q.push([]byte("\x1b[0n"), replyOrigin{})
	select {
	case <-first:
	case <-time.After(10 * time.Second):
		t.Fatal("the writer did not write the first reply")
	}
	for range 10000 { // the writer is stuck: these pile up, then drop
		q.push([]byte("\x1b[2;2R"), replyOrigin{})
	}
	if q.Dropped() == 0 {
		t.Errorf("nothing dropped behind a stuck writer")
	}
	cancel()
	q.wait()
	mu.Lock()
	defer mu.Unlock()
	if string(written) != "\x1b[0n" {
		t.Errorf("written = %q", written)
	}
}

// takeAll drains q and returns the replies queued, in order.
func takeAll(q *replyQueue) []byte {
	var all []byte
	for {
		b, ok := q.take()
		if !ok {
			return all
		}
		all = append(all, b.b...)
	}
}

// Replies keep their origin in the queue: a batch per origin, in order,
// and a batch the writer does not deliver (its program left the
// foreground or never read) is counted as dropped, the others written.
func TestReplyQueueDeliversByOrigin(t *testing.T) {
	q := newReplyQueue()
	mine, gone := replyOrigin{pgrp: 10}, replyOrigin{pgrp: 11}
	q.push([]byte("\x1b[0n"), mine)
	q.push([]byte("\x1b[1;1R"), mine)
	q.push([]byte("\x1b[?62;22c\x1b[>1;10;0c"), gone)
	q.push([]byte("\x1b[2;2R"), mine)
	var written []byte
	var batches int
	done := make(chan struct{})
	deliver := func(ctx context.Context, b replyBatch) (bool, error) {
		batches++
		if b.from == gone {
			return false, nil
		}
		written = append(written, b.b...)
		if string(written) == "\x1b[0n\x1b[1;1R\x1b[2;2R" {
			close(done)
		}
		return true, nil
	}
	ctx, cancel := context.WithCancel(t.Context())
	go q.run(ctx, deliver)
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the writer did not deliver the replies")
	}
	cancel()
	q.wait()
	if batches != 3 {
		t.Errorf("%d batches delivered, want 3 (one per run of an origin)", batches)
	}
	if d := q.Dropped(); d != 2 {
		t.Errorf("Dropped = %d, want the 2 replies of the group that left", d)
	}
}

// A shell with marks is idle from its first prompt until a command starts
// (C) and again from the command's end (D): a query read then is no
// program's, and its reply is dropped (issue 38 item 1).
func TestMarksIdle(t *testing.T) {
	line := func() (string, bool) { return "$ ", true }
	var tr inputTracker
	steps := []struct {
		kind byte
		idle bool
	}{
		{'A', false}, // before the first prompt: start-up files may ask
		{'B', true},
		{'C', false},
		{'D', true},
		{'A', true},
		{'B', true},
	}
	for i, st := range steps {
		tr.mark(prompt.Mark{Kind: st.kind}, line)
		if got := tr.marks.idle(); got != st.idle {
			t.Errorf("after mark %d (%c): idle = %v, want %v", i, st.kind, got, st.idle)
		}
	}
	p := &Process{}
	if ready, drop := p.replyReady(replyOrigin{pgrp: 1, idle: true}); ready || !drop {
		t.Errorf("a reply to a query read at the prompt: ready %v, drop %v; want dropped", ready, drop)
	}
}

// A program that queried its terminal and blocks reading the reply does
// not wait for the agent while the reply, written, waits unread in the
// terminal. On a loaded machine the kernel can still show the program
// asleep in its read when asked, because it has not been scheduled since
// the reply came; it takes the reply the moment after, so the typeahead,
// asked after the kernel, finds none. bash's
// `read -t 5 -sdR -p $'\e[6n' row col` in an integrated shell was so
// reported waiting for a line (input_signal tty_read) in 5 to 6 of 80
// conformance runs under two busy loops.
func TestUnreadReplyIsNoInputWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// The read builtin's terminal: no echo, no line editing.
		m, e, k := fakeManager(t, nil, func(f *fakeProc) { f.echo, f.raw = false, true })
		p, err := m.Start(t.Context(), spec("cpr-reader", true))
		if err != nil {
			t.Fatal(err)
		}
		f := e.started()[0]
		// Asleep in its read of the terminal until the scheduler runs it;
		// then it takes whatever waits there.
		k.script(prompt.Unknown, func(prompt.Input) prompt.Probe {
			f.setTypeahead(false)
			return prompt.Probe{Activity: prompt.Reading, Reader: prompt.Task{Pid: f.pid, Tid: f.pid}}
		})
		f.print("\x1b[6n")
		synctest.Wait() // the writer delivered the reply
		if got := f.written(); got != "\x1b[1;1R" {
			t.Fatalf("written %q, want the reply to the query", got)
		}
		time.Sleep(time.Second) // long quiet: only the kernel decides
		if st := p.evalInput(0); st.Waiting {
			t.Fatalf("reported waiting for input (%+v) while its reply waited unread", st)
		}

		// It reads the reply, answers, and then does wait for a line.
		f.setTypeahead(false)
		f.print("cpr=1;1\r\nname? ")
		synctest.Wait()
		time.Sleep(time.Second)
		if st := p.evalInput(0); !st.Waiting || st.Prompt != "name? " {
			t.Errorf("after the reply was read: %+v, want waiting at %q", st, "name? ")
		}
	})
}

// A query read just after a shell's command ended, the shell already in
// the foreground again, is not answered into the line editor that reads a
// moment later. The shell prints its prompt before it reads: if the kernel
// shows it reading, its prompt is in the terminal or in the log, and the
// reply is held, then dropped once the prompt is read. Looked at before
// the kernel was asked, the terminal was empty, and the reply reached the
// line editor: "cd build; rm -f *.txt" ran as "1;10;0ccd build; rm -f
// *.txt" and deleted the files outside build (the conformance case
// TestRepliesToPrintedQueriesDoNotReachTheShell, under load).
func TestReplyNotTypedIntoTheReturningShell(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// A line editor's terminal: no echo by the kernel, no line editing.
		m, e, k := fakeManager(t, nil, func(f *fakeProc) { f.echo, f.raw = false, true })
		p, err := m.Start(t.Context(), spec("bash", true))
		if err != nil {
			t.Fatal(err)
		}
		f := e.started()[0]
		f.print("\x1b]133;A\auser@host:~$ \x1b]133;B\a\x1b]133;C\a") // cat README runs
		synctest.Wait()
		// cat has ended; while the kernel is asked, the shell prints its
		// prompt (unread yet) and begins to read.
		k.script(prompt.Unknown, func(prompt.Input) prompt.Probe {
			f.setPending(true)
			return prompt.Probe{Activity: prompt.Reading, Reader: prompt.Task{Pid: f.pid, Tid: f.pid}}
		})
		f.print("\x1b[>c") // cat's last output, read with the shell in the foreground
		synctest.Wait()
		if got := f.written(); got != "" {
			t.Fatalf("the reply %q was written while the shell's prompt waited unread", got)
		}
		k.script(prompt.Reading, nil)
		f.setPending(false)
		f.print("\x1b]133;D;0\a\x1b]133;A\auser@host:~$ \x1b]133;B\a")
		time.Sleep(2 * replyHold)
		synctest.Wait()
		if got := f.written(); got != "" {
			t.Errorf("the reply %q was written to the shell at its prompt", got)
		}
		if d := p.out.replies.Dropped(); d != 1 {
			t.Errorf("Dropped = %d, want the reply to the query", d)
		}
	})
}
