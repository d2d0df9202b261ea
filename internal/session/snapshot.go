package session

import (
	"bytes"
	"time"

	"github.com/yieldshell/yieldshell/internal/outlog"
	"github.com/yieldshell/yieldshell/prompt"
	"github.com/yieldshell/yieldshell/screen"
)

// Query selects what a [Snapshot] holds.
type Query struct {
	Since    *int64 // nil: the newest output (tail)
	MaxBytes int
	Streams  Stream
	// Screen asks for the rendered screen. A process in the alternate
	// screen always gets it.
	Screen bool
	// Look takes the snapshot without committing the rows on the screen
	// to the log (see the package doc): for those who look without
	// answering the agent (progress notifications, ps, a write's starting
	// point, the log file). Output.Pending has those rows instead.
	Look bool
	// Input says whether, and how, the snapshot says if the program waits
	// for input.
	Input InputQuery
	// HeadTail cuts output over MaxBytes into its head and its tail,
	// saying what is left out between them (Output.Omitted), instead of
	// keeping only the tail (no Since) or the head (Since).
	HeadTail bool
	// Raw returns the exact stored bytes from Since (nil: 0) on, binary
	// output included, cut at any byte (see [Process.Raw]); HeadTail is
	// ignored.
	Raw bool
	// KeepRaw adds, when the output holds binary output, the same slice
	// of the log as stored (Output.RawStdout, RawStderr): for an answer
	// that shows the text and also hands over the bytes (a resource's
	// blob).
	KeepRaw bool
}

// InputQuery says which input state a [Snapshot] carries.
type InputQuery int

const (
	// NoInput leaves Snapshot.Input zero.
	NoInput InputQuery = iota
	// InputNow evaluates the input state at the snapshot's instant; the
	// kernel is asked once the output has been quiet for a few
	// milliseconds (read, wait, exec, write).
	InputNow
	// InputSettled is InputNow for a program whose output has been quiet
	// for the quiet period; one that printed more recently is reported
	// not waiting. A listing of many processes (ps) uses it to stay cheap
	// while they are busy.
	InputSettled
)

// Output is a slice of a process's output.
type Output struct {
	Stdout, Stderr []byte
	StartSeq       int64
	NextSeq        int64
	Evicted        bool // some of the output asked for is no longer retained
	Capped         bool // the byte budget left some of it out
	// Omitted is the stretch a HeadTail query left out, if any.
	Omitted *outlog.Omission
	// Binary lists the binary output the slice covers: its bytes are not
	// in Stdout and Stderr (the text around them is joined there); Raw
	// returns them.
	Binary []outlog.Part
	// RawStdout and RawStderr, with Query.KeepRaw and binary output in
	// the slice, are the slice's exact stored bytes, binary included, at
	// the same positions as Stdout and Stderr; nil otherwise.
	RawStdout, RawStderr []byte
	// Screen is the rendered terminal, when asked for or while a
	// full-screen program runs; nil otherwise and in pipe mode.
	Screen *screen.Snapshot
	// Pending, with Query.Look, is what is on the screen but not in the
	// log yet, redacted; it has no positions (it comes after NextSeq once
	// committed, possibly redrawn). nil otherwise and in pipe mode.
	Pending []byte
}

// Snapshot is a process at one instant: what every answer about it is
// built from, so that its fields agree with each other. Everything in it
// is taken under the Process's lock at once; the input state is decided
// from that instant's view (see [Process.Snapshot]).
type Snapshot struct {
	Info
	Output
	// Input says whether the program waits for input; zero unless the
	// query asked (Query.Input) and the process is running.
	Input InputState
	// URLs are the http(s) URLs the process has printed, deduplicated, in
	// order (at most 20; output evicted before it was looked at is not).
	URLs []string
	// CommandExits are the exit codes of the commands an integrated shell
	// finished since the last write, in the order they finished: those
	// the write submitted, and those that were running when it came. nil
	// when none finished.
	CommandExits []int
}

// Snapshot takes the process's state at one instant, under one lock: its
// summary, the selected output, URLs, command exit codes and, if asked,
// whether it waits for input. Unless q.Look, the rows on the screen are
// committed to the log first: the snapshot is an answer to the agent.
//
// The input state is decided from the same instant's view; where that
// needs the kernel, it is asked after the lock, and its answer counts only
// if no output arrived since the instant (otherwise the program is
// reported not waiting: the output shown may not be the prompt).
func (p *Process) Snapshot(q Query) Snapshot {
	probeAfter := q.Input.probeAfter(p.timing)
	p.mu.Lock()
	s := p.snapshotLocked(q)
	ask := q.Input != NoInput && s.Status == Running
	var v prompt.Observation
	if ask {
		v = p.observeLocked(time.Now(), probeAfter)
	}
	p.mu.Unlock()
	if ask {
		s.Input = p.inputFrom(v)
	}
	return s
}

// probeAfter is how long the output must have been quiet before the
// kernel is asked.
func (iq InputQuery) probeAfter(t *timing) time.Duration {
	if iq == InputSettled {
		return t.quietPeriod
	}
	return t.firstProbe
}

// snapshotLocked is Snapshot but the input state. Called with p.mu held.
func (p *Process) snapshotLocked(q Query) Snapshot {
	if !q.Look {
		p.out.flush(p.log)
	}
	var r outlog.Result
	var om *outlog.Omission
	if q.Raw {
		from := int64(0)
		if q.Since != nil {
			from = max(*q.Since, 0)
		}
		r = p.log.ReadRaw(from, max(q.MaxBytes, 1), q.Streams)
	} else {
		r, om = p.readLocked(q, false)
	}
	var raw outlog.Result
	if q.KeepRaw && !q.Raw && len(r.Binary) > 0 {
		raw, _ = p.readLocked(q, true) // the same read, as stored
	}
	s := Snapshot{
		Info: p.infoLocked(),
		Output: Output{
			Stdout: r.Stdout, Stderr: r.Stderr,
			StartSeq: r.Start, NextSeq: r.Next,
			Evicted: r.Evicted, Capped: r.Capped, Omitted: om,
			Binary: r.Binary, RawStdout: raw.Stdout, RawStderr: raw.Stderr,
			Screen: p.out.screen(q.Screen),
		},
		CommandExits: p.in.cmds.since(p.in.wrote.exits),
	}
	if q.Look {
		// Counted as the log will count them once they are committed.
		s.Pending = p.out.pendingText(nil)
		s.StdoutBytes += int64(len(s.Pending))
	}
	s.URLs = p.urlsLocked(s.Pending)
	return s
}

// readLocked is q's read of the log: head and tail, the newest bytes, or
// from since; as text, or as stored (binary parts included) when raw.
// Called with p.mu held.
func (p *Process) readLocked(q Query, raw bool) (outlog.Result, *outlog.Omission) {
	headTail, tail, from := p.log.HeadTail, p.log.ReadTail, p.log.ReadFrom
	if raw {
		headTail, tail, from = p.log.HeadTailRaw, p.log.ReadTailRaw, p.log.ReadRaw
	}
	switch {
	case q.HeadTail:
		return headTail(headTailFrom(q.Since), q.MaxBytes, q.Streams)
	case q.Since == nil:
		return tail(q.MaxBytes, q.Streams), nil
	}
	return from(*q.Since, q.MaxBytes, q.Streams), nil
}

// headTailFrom is HeadTail's from for a query's since: -1 for none.
func headTailFrom(since *int64) int64 {
	if since == nil {
		return -1
	}
	return max(*since, 0)
}

// confirmInput takes the answer's snapshot for an input-wait verdict st
// decided from view v, if nothing changed since v was taken; the verdict
// and the snapshot are then of the same instant.
func (p *Process) confirmInput(v prompt.Observation, st InputState, q Query) (*Snapshot, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.lc.over() || p.in.outputs != v.Outputs || p.in.inFlight.Load() != 0 || !p.in.wrote.At.Equal(v.Wrote.At) {
		return nil, false
	}
	s := p.snapshotLocked(q)
	s.Input = st
	return &s, true
}

// LogEnd returns the position the next byte of output will get, once what
// is on the screen now is in the log: a wait for a pattern in what comes
// after this call starts there (it is the agent's call, so it commits).
func (p *Process) LogEnd() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.out.flush(p.log)
	return p.log.End()
}

// URLs returns the http(s) URLs the process has printed so far (see
// Snapshot.URLs); what is on the screen is committed first.
func (p *Process) URLs() []string {
	return p.Snapshot(Query{}).URLs
}

// urlsLocked returns the URLs in the log, and those in the complete lines
// of pending (text on the screen a look did not commit) without keeping
// them: they count once they are in the log.
func (p *Process) urlsLocked(pending []byte) []string {
	u := &p.out.urls
	u.scan.Needle = urlMark
	if len(u.list) < maxURLs {
		u.scan.Scan(p.log, u.add)
		if p.lc.ended() && p.streams.open == 0 {
			// The output is complete: a line begun is as finished as it
			// will be, and what was kept of it would count against the
			// ended runs' budget unseen (it grows after their count).
			for i, part := range u.scan.Partial {
				if len(u.list) < maxURLs && bytes.Contains(part, urlMark) {
					u.add(part)
				}
				u.scan.Partial[i] = nil
			}
		}
	}
	list := append([]string(nil), u.list...)
	if i := bytes.LastIndexByte(pending, '\n'); i >= 0 {
		for line := range bytes.Lines(pending[:i+1]) {
			if len(list) >= maxURLs {
				break
			}
			list = u.peek(list, bytes.TrimSuffix(line, []byte("\n")))
		}
	}
	return list
}

// EvictedBytes is how many bytes of output the process has produced that are
// no longer retained: evicted from the front of its log to keep it within
// YIELDSHELL_MAX_LOG_BYTES.
func (p *Process) EvictedBytes() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.log.Start()
}

// CommandExits returns the exit codes of the commands an integrated shell
// finished since the last write, in the order they finished: those the
// write submitted, and those that were running when it came. nil when
// none finished.
func (p *Process) CommandExits() []int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.in.cmds.since(p.in.wrote.exits)
}
