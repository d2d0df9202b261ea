package session

import (
	"context"
	"regexp"
	"sync/atomic"
	"time"

	"github.com/yieldshell/yieldshell/prompt"
)

// InputState says whether a program waits for input.
type InputState struct {
	Waiting bool
	Kind    prompt.Kind
	Signal  Signal
	Prompt  string // the prompt text: the line the cursor is on
}

// markState follows the shell-integration marks of a process.
type markState struct {
	atPrompt bool   // B seen, no C since
	running  bool   // C seen, no D since
	prompts  uint64 // B marks so far
	exits    uint64 // D marks with a code after a C
	prompt   string // the line when the newest B arrived
}

// wrote is what a write changed, so that a wait after it does not take the
// state from before the write for an answer.
type wrote struct {
	at       time.Time
	outputs  uint64 // output reads before it
	prompts  uint64
	exits    uint64
	reader   prompt.Task // the thread that was blocked reading, if any
	switches uint64      // its context switches then
}

// markLocked applies one mark.
func (p *Process) markLocked(m prompt.Mark) {
	ms := &p.in.marks
	switch m.Kind {
	case 'A':
		ms.atPrompt = false
	case 'B':
		ms.atPrompt = true
		ms.prompts++
		ms.prompt, _ = p.out.line()
	case 'C':
		ms.atPrompt, ms.running = false, true
	case 'D':
		if code, ok := m.ExitCode(); ok && ms.running {
			ms.exits++
			p.in.cmds.add(code)
		}
		ms.running = false
	}
}

// inputTracker is what input-wait detection follows of a process: its
// output's arrival, the shell-integration marks, the newest write, and the
// kernel it asks. The Process guards it with its mutex (inFlight is also
// raised without it).
type inputTracker struct {
	prober *prompt.Prober // shared by the Manager's processes
	kernel kernel         // procKernel but in tests

	outputs    uint64    // appends so far
	lastOutput time.Time // when the newest output arrived; the start until then
	// inFlight counts readers holding output between the read from the
	// terminal (or pipe) and the log. Nobody judges input-wait while it is
	// not zero: the output may be the very prompt the program waits at.
	inFlight atomic.Int32
	marks    markState
	feeding  bool        // exec's stdin is still being written
	wrote    wrote       // the newest write
	reader   prompt.Task // the thread last seen blocked reading the input

	// cmds keeps the exit codes of D marks (commands.go).
	cmds commandCodes
}

// inputView is what evaluating the input state needs, taken under p.mu.
type inputView struct {
	over    bool // ended, exited, or still being fed exec's stdin
	marks   markState
	quiet   time.Duration // since the newest output or write
	line    string
	atEnd   bool
	wrote   wrote
	outputs uint64
}

// inputViewLocked takes the view; the line only when the kernel is going to
// be asked (after probeAfter of quiet), since only then is it looked at.
func (p *Process) inputViewLocked(now time.Time, probeAfter time.Duration) inputView {
	// Quiet since the newest output or write, whichever came last: what
	// was on the screen before a write says nothing about the answer.
	since := p.in.lastOutput
	if p.in.wrote.at.After(since) {
		since = p.in.wrote.at
	}
	v := inputView{
		over:    p.lc.over() || p.in.feeding,
		marks:   p.in.marks,
		quiet:   now.Sub(since),
		wrote:   p.in.wrote,
		outputs: p.in.outputs,
	}
	if !v.over && v.quiet >= probeAfter {
		v.line, v.atEnd = p.out.line()
	}
	return v
}

// evalInput decides whether the program waits for input now. The kernel is
// asked only once the output has been quiet for probeAfter (noProbe: never);
// the marks always count.
func (p *Process) evalInput(probeAfter time.Duration) InputState {
	p.mu.Lock()
	v := p.inputViewLocked(time.Now(), probeAfter)
	p.mu.Unlock()
	if v.over {
		return InputState{}
	}
	ms := v.marks
	if p.shellReady(v) {
		return InputState{Waiting: true, Kind: prompt.KindCommand, Signal: SignalMark, Prompt: ms.prompt}
	}
	if ms.prompts > 0 && !ms.running {
		// An integrated shell between a command's end and its next prompt:
		// the B mark, not the shell's own read, says when it is ready.
		return InputState{}
	}
	if v.quiet < probeAfter {
		// A program still printing is not waiting.
		return InputState{}
	}
	if p.in.kernel.pending() {
		// Output not read yet (a busy server): the program is still
		// printing, and asking the kernel now would only add to the load.
		return InputState{}
	}
	pr := p.in.kernel.inspect()
	if pr.Activity != prompt.Busy && !p.unchangedSince(v) {
		// Output arrived, or is on its way to the log, while the kernel
		// was asked: it may be the prompt the program now waits at, so
		// the answer waits for it (its append wakes every waiter).
		return InputState{}
	}
	switch pr.Activity {
	case prompt.Reading:
		if p.staleReader(pr.Reader, v) || p.in.kernel.typeahead() {
			return InputState{}
		}
		p.mu.Lock()
		p.in.reader = pr.Reader
		p.mu.Unlock()
		st := InputState{Waiting: true, Kind: prompt.KindLine, Signal: SignalTTY, Prompt: v.line}
		if p.TTY {
			if echo, canonical, err := p.proc.Modes(); err == nil && !echo && canonical {
				st.Kind = prompt.KindPassword
			}
		} else {
			st.Signal = SignalStdin
			if k, ok := prompt.LooksLikePrompt(v.line); ok && k == prompt.KindPassword {
				st.Kind = k
			}
		}
		return st
	case prompt.Polling, prompt.Unknown:
		if v.quiet < p.timing.quietPeriod || !v.atEnd {
			return InputState{}
		}
		if kind, ok := p.looksLikePrompt(v.line); ok {
			return InputState{Waiting: true, Kind: kind, Signal: SignalQuiet, Prompt: v.line}
		}
	}
	return InputState{}
}

// unchangedSince reports whether every byte the program wrote before the
// kernel was asked is in the log the view v was taken from: none waits in
// the terminal, none is held by a reader between its read and the log, and
// none was appended since. Checked after asking the kernel, this leaves no
// window in which a program is seen waiting while its prompt is not yet
// visible.
func (p *Process) unchangedSince(v inputView) bool {
	if p.in.kernel.pending() {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.in.inFlight.Load() == 0 && p.in.outputs == v.outputs
}

// staleReader reports whether the thread blocked reading is the one that
// was blocked when the last write went in and has not woken up since: it
// has not read the input yet, so its wait is the old one. Once the output
// has settled it counts anyway: the input was a partial line, and the
// program still waits for the rest.
//
// A reader that woke up and waits again still needs output after the write
// (the echo, an answer) before it counts, unless the output has settled:
// the terminal hands input over asynchronously, so a reader may wait again
// between two pieces of one write.
func (p *Process) staleReader(t prompt.Task, v inputView) bool {
	if v.wrote.at.IsZero() || v.quiet >= p.timing.quietPeriod {
		return false
	}
	if v.outputs == v.wrote.outputs {
		return true
	}
	if t != v.wrote.reader {
		return false
	}
	n, ok := prompt.Switches(t)
	return ok && n == v.wrote.switches
}

// kernel is what input-wait detection asks the kernel; tests replace it to
// put a probe at a chosen moment.
type kernel interface {
	// pending reports whether output the program wrote has not been
	// handed on by the stream's reader yet: it waits in the terminal or
	// pipe, or a reader holds it between its read and the log.
	pending() bool
	// inspect says what the program's foreground is doing.
	inspect() prompt.Probe
	// typeahead reports whether input written waits unread in the
	// terminal, and shellBusy whether an integrated shell has input
	// written to it still to take (commands.go).
	typeahead() bool
	shellBusy() bool
}

// procKernel asks the kernel about a Process's own program.
type procKernel struct{ p *Process }

func (k procKernel) pending() bool { return k.p.proc.Pending() }

func (k procKernel) inspect() prompt.Probe { return k.p.inspect() }

// inspect asks the kernel what the program's foreground is doing.
func (p *Process) inspect() prompt.Probe {
	in := prompt.Input{Session: p.Pid, Path: p.proc.InputPath()}
	if in.Path == "" {
		return prompt.Probe{}
	}
	if p.TTY {
		pgrp, err := p.proc.ForegroundPgrp()
		if err != nil {
			return prompt.Probe{}
		}
		in.Pgrp = pgrp
	}
	return p.in.prober.Inspect(in)
}

// InputState returns whether the program waits for input now.
func (p *Process) InputState() InputState {
	return p.evalInput(p.timing.firstProbe)
}

// SettledInputState is InputState for a program whose output has been
// quiet for the quiet period; one that printed more recently is reported
// not waiting. A listing of many processes (ps) uses it to stay cheap while
// they are busy.
func (p *Process) SettledInputState() InputState {
	return p.evalInput(p.timing.quietPeriod)
}

// beforeWrite records the state a write is about to change.
func (p *Process) beforeWrite() {
	p.mu.Lock()
	w := wrote{at: time.Now(), outputs: p.in.outputs, prompts: p.in.marks.prompts, exits: p.in.marks.exits, reader: p.in.reader}
	p.mu.Unlock()
	if w.reader != (prompt.Task{}) {
		w.switches, _ = prompt.Switches(w.reader)
	}
	p.mu.Lock()
	p.in.wrote = w
	p.mu.Unlock()
}

// Until says what, besides the end of the process, ends a wait.
type Until struct {
	// InputWait ends the wait when the program waits for input.
	InputWait bool
	// Pattern ends the wait when it matches a line of the clean log at or
	// after position From (0: everything the process printed, so output of
	// its first milliseconds is never missed).
	Pattern *regexp.Regexp
	From    int64
	// Quiet, when set, ends the wait once no state change (output, exit)
	// has happened for that long: the first reaction to a start or an
	// input, without waiting for the end.
	Quiet time.Duration
	// Detached ends the wait when the command exited and its output is
	// drained while processes it started still run (`cmd &`): what it
	// runs in the background is managed until it ends.
	Detached bool
}

// Outcome says why a wait returned, with what it found.
type Outcome struct {
	Reason Reason
	Input  InputState // with ReasonInputWait
	// With ReasonPattern: the text the pattern matched and its whole line.
	Matched, Line string
}

// Await is the one blocking primitive behind exec, wait, write and start: it
// returns when the process has ended (exited and its output drained), a
// condition of u holds, the deadline passes, or ctx is done. Every state
// change wakes it; nothing polls, except that with InputWait the kernel is
// asked about the program on a schedule that starts firstProbe after each
// output and backs off while nothing changes.
//
// A pattern is looked for line by line, each byte once: only what was
// appended since the previous wake-up is scanned, a line split across
// chunks is seen whole, and the line still being written is tried as it
// grows. Output that arrived before the end is looked at before the end is
// reported.
func (p *Process) Await(ctx context.Context, deadline time.Time, u Until) Outcome {
	var timeout <-chan time.Time
	if !deadline.IsZero() {
		t := time.NewTimer(time.Until(deadline))
		defer t.Stop()
		timeout = t.C
	}
	var calmC <-chan time.Time
	calm := time.NewTimer(u.Quiet)
	defer calm.Stop()
	if u.Quiet > 0 {
		calmC = calm.C
	}
	var probeC <-chan time.Time
	probeT := time.NewTimer(p.timing.firstProbe)
	defer probeT.Stop()
	if u.InputWait {
		probeC = probeT.C
	}
	backoff := p.timing.firstProbe
	probe := false
	var seen uint64
	scan := lineScan{pos: u.From}
	var out Outcome
	match := func(b []byte) bool {
		loc := u.Pattern.FindIndex(b)
		if loc == nil {
			return false
		}
		out.Matched, out.Line = string(b[loc[0]:loc[1]]), string(b)
		return true
	}
	for {
		p.mu.Lock()
		matched := u.Pattern != nil && scan.scan(p.log, true, match)
		ended := p.lc.ended()
		detached := u.Detached && p.lc.detached
		ch := p.changed
		outputs, last := p.in.outputs, p.in.lastOutput
		p.mu.Unlock()
		switch {
		case matched:
			out.Reason = ReasonPattern
			return out
		case ended:
			return Outcome{Reason: ReasonExited}
		case detached:
			return Outcome{Reason: ReasonDetached}
		}
		if u.InputWait {
			probeAfter := noProbe
			if probe {
				probeAfter = p.timing.firstProbe
			}
			if st := p.evalInput(probeAfter); st.Waiting {
				return Outcome{Reason: ReasonInputWait, Input: st}
			}
			now := time.Now()
			if outputs != seen {
				seen, backoff = outputs, p.timing.firstProbe
				resetTimer(probeT, p.timing.firstProbe)
			} else if probe {
				backoff = min(2*backoff, p.timing.maxProbe)
				next := backoff
				// The heuristic turns true quietPeriod after the output.
				if q := last.Add(p.timing.quietPeriod).Sub(now); q > 0 {
					next = min(next, q+time.Millisecond)
				}
				resetTimer(probeT, next)
			}
			probe = false
		}
		select {
		case <-ch:
			if calmC != nil {
				resetTimer(calm, u.Quiet)
			}
		case <-calmC:
			return Outcome{Reason: ReasonQuiet}
		case <-probeC:
			probe = true
		case <-timeout:
			return Outcome{Reason: ReasonDeadline}
		case <-ctx.Done():
			return Outcome{Reason: ReasonCancelled}
		}
	}
}

func resetTimer(t *time.Timer, d time.Duration) {
	t.Stop()
	t.Reset(d)
}
