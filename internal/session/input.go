package session

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/yieldshell/yieldshell/internal/policy"
	"github.com/yieldshell/yieldshell/prompt"
	"github.com/yieldshell/yieldshell/pty"
)

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
	if secrets := p.out.secrets.all(); len(secrets) > 0 {
		// The cursor's line comes from the cleaner, which sees the output
		// before its second redaction: a secret interrupted by escape
		// codes is whole only there.
		v.line = policy.Redact(secrets, v.line)
		v.marks.prompt = policy.Redact(secrets, v.marks.prompt)
	}
	return v
}

// InputState says whether the program waits for input now, for a
// decision (a step's condition, on_input, a person's page); an answer
// takes its input state with its Snapshot instead, so that its fields
// agree.
func (p *Process) InputState() InputState {
	return p.evalInput(p.timing.firstProbe)
}

// evalInput decides whether the program waits for input now. The kernel is
// asked only once the output has been quiet for probeAfter (noProbe: never);
// the marks always count.
func (p *Process) evalInput(probeAfter time.Duration) InputState {
	st, _ := p.evalInputView(probeAfter)
	return st
}

// evalInputView is evalInput, with the view it decided from.
func (p *Process) evalInputView(probeAfter time.Duration) (InputState, inputView) {
	p.mu.Lock()
	v := p.inputViewLocked(time.Now(), probeAfter)
	p.mu.Unlock()
	return p.inputFrom(v, probeAfter), v
}

// inputFrom decides from v, a view taken under p.mu with the same
// probeAfter; a verdict that needs the kernel counts only if nothing
// changed since v was taken. A waiting verdict says what it rests on.
func (p *Process) inputFrom(v inputView, probeAfter time.Duration) InputState {
	st := p.decideInput(v, probeAfter)
	if st.Waiting {
		st.Confidence = st.Signal.Confidence()
	}
	return st
}

// decideInput is inputFrom's decision.
func (p *Process) decideInput(v inputView, probeAfter time.Duration) InputState {
	if v.over {
		return InputState{}
	}
	if st, decided := p.byMarks(v); decided {
		return st
	}
	if v.quiet < probeAfter {
		// A program still printing is not waiting.
		return InputState{}
	}
	if p.proc.Pending() {
		// Output not read yet (a busy server): the program is still
		// printing, and asking the kernel now would only add to the load.
		return InputState{}
	}
	if p.out.replies != nil && p.out.replies.outstanding() {
		// A program reading its terminal right after a query waits for
		// the reply, which is on its way (deliverReply), not for input.
		return InputState{}
	}
	pr := p.inspect()
	if (pr.Activity != prompt.Busy || pr.Timed) && !p.unchangedSince(v) {
		// Output arrived, or is on its way to the log, while the kernel
		// was asked: it may be the prompt the program now waits at, so
		// the answer waits for it (its append wakes every waiter).
		return InputState{}
	}
	return p.describe(pr, v, p.byKernel(pr, v))
}

// byMarks is what an integrated shell's marks say, if they decide.
func (p *Process) byMarks(v inputView) (InputState, bool) {
	ms := v.marks
	if p.shellReady(v) {
		return InputState{Waiting: true, Kind: prompt.KindCommand, Signal: SignalMark, Prompt: ms.prompt}, true
	}
	if ms.prompts > 0 && !ms.running {
		// An integrated shell between a command's end and its next prompt:
		// the B mark, not the shell's own read, says when it is ready.
		return InputState{}, true
	}
	return InputState{}, false
}

// byKernel is what the kernel's probe says, with the line the cursor is
// on.
func (p *Process) byKernel(pr prompt.Probe, v inputView) InputState {
	switch pr.Activity {
	case prompt.Reading:
		return p.byRead(pr, v)
	case prompt.Busy:
		return p.byTimedWait(pr, v)
	case prompt.Polling, prompt.Unknown:
		if v.quiet < p.timing.quietPeriod || !v.atEnd || p.unansweredWrite(v) {
			return InputState{}
		}
		if kind, ok := p.looksLikePrompt(v.line); ok {
			st := InputState{Waiting: true, Kind: kind, Signal: SignalQuiet, Prompt: v.line}
			if kind == prompt.KindPassword && pr.Activity == prompt.Unknown && p.lineReadNoEcho() {
				st.Signal = SignalTTYMode
			}
			return st
		}
	}
	return InputState{}
}

// byRead is what a thread blocked reading the input says.
func (p *Process) byRead(pr prompt.Probe, v inputView) InputState {
	// Typeahead: a program blocked reading its terminal while input waits
	// there unread has not been scheduled since (a loaded machine);
	// asking also makes the terminal hand over what the server wrote, so
	// a Ctrl-C written reaches the program first.
	if p.staleReader(pr.Reader, v) || p.proc.Typeahead() || p.relayUnanswered(pr, v) {
		return InputState{}
	}
	p.mu.Lock()
	p.in.reader = pr.Reader
	p.mu.Unlock()
	st := InputState{Waiting: true, Kind: prompt.KindLine, Signal: SignalTTY, Prompt: v.line}
	if pr.Relay != nil {
		st.Signal, st.relay = SignalRelay, pr.Relay
	} else if !p.TTY {
		st.Signal = SignalStdin
		if k, ok := prompt.LooksLikePrompt(v.line); ok && k == prompt.KindPassword {
			st.Kind = k
		}
		return st
	}
	echo, canonical, err := p.modes(pr.Relay)
	switch {
	case err != nil || echo:
	case canonical || prompt.MaskedPassword(v.line):
		// Echo off, and a line read (getpass, read -s), or a line editor
		// in mask mode: raw, one '*' per key.
		st.Kind = prompt.KindPassword
	case v.line == "":
		// A full-screen dialog (pinentry-curses, whiptail's password
		// box): its prompt is left of the cursor on the screen, not in
		// the log.
		if d := p.dialogPrompt(); prompt.MaskedPassword(d) {
			st.Kind, st.Prompt = prompt.KindPassword, d
		}
	}
	return st
}

// byTimedWait is what an event loop waiting on its input and a timer
// says: it is the timer's, unless other evidence says it waits at its
// prompt: the line is a REPL's bare or named prompt, or none in a REPL's
// mode without one (node's REPL keeps a timer for its first seconds, node
// inspect's "debug> " for as long as it runs); the line asks a question
// that names its answers or a default (npm init, under node's start-up
// timer); or the timer is not the line's (timerNotTheLine). A label
// followed by a sleep ("Signing in as ada: ") is none of these.
func (p *Process) byTimedWait(pr prompt.Probe, v inputView) InputState {
	if !pr.Timed || v.quiet < p.timing.quietPeriod || !v.atEnd {
		return InputState{}
	}
	repl := prompt.REPLPrompt(v.line) || strings.TrimSpace(v.line) == ""
	if notLine := p.timerNotTheLine(pr, v); !repl && !notLine && !prompt.Asks(v.line) || p.unansweredWrite(v) {
		return InputState{}
	}
	if kind, ok := p.looksLikePrompt(v.line); ok {
		return InputState{Waiting: true, Kind: kind, Signal: SignalQuiet, Prompt: v.line}
	}
	return InputState{}
}

// timerSlack widens what is known of when a timer ends: the wait began
// after the program's newest output, which reaches the log a little later.
const timerSlack = 20 * time.Millisecond

// timerNotTheLine reports whether the timer of a timed wait on the input
// is not one the program waits on after its line: the loop woke from it
// and waits again with nothing printed (a period of its own: IPython wakes
// every 500 ms), or it ends when a timer seen before the newest output
// ended (it outlived a prompt: node's start-up timer under npm init's
// questions). A program that prints a line and then sleeps arms its timer
// after the line and does not wake before it ends. The first sighting of
// a wait only records it.
func (p *Process) timerNotTheLine(pr prompt.Probe, v inputView) bool {
	n, counted := p.in.prober.Switches(pr.Waiter)
	now := time.Now()
	// The wait began between the newest output and now, so its timer
	// ends between these two.
	lo, hi := now.Add(-v.quiet-timerSlack+pr.Timeout), now.Add(pr.Timeout)
	p.mu.Lock()
	defer p.mu.Unlock()
	seen := &p.in.timed
	switch {
	case seen.task == pr.Waiter && seen.outputs == v.outputs:
		if counted && n > seen.switches {
			return true // it woke and waits again: an idle loop
		}
		if lo.After(seen.lo) {
			seen.lo = lo
		}
		if hi.Before(seen.hi) {
			seen.hi = hi
		}
		return seen.old
	case seen.task == pr.Waiter:
		// The same thread, after new output: the same timer if the two
		// windows for its end meet.
		old := !lo.After(seen.hi.Add(timerSlack)) && !hi.Before(seen.lo.Add(-timerSlack))
		*seen = timedWait{task: pr.Waiter, switches: n, outputs: v.outputs, lo: lo, hi: hi, old: old}
		return old
	}
	*seen = timedWait{task: pr.Waiter, switches: n, outputs: v.outputs, lo: lo, hi: hi}
	return false
}

// unansweredWrite reports whether the line the cursor is on can still be
// the one from before the last write, for a verdict from the line alone
// (no thread blocked reading says the input was taken). Under a terminal
// what is typed is echoed, by the terminal or by a line editor that turned
// its echo off (rlwrap), and with echo off (a password typed behind ssh)
// the next prompt follows: no output since the write means the program
// has not answered yet, however long it takes (rlwrap was once slower than
// the quiet period). Output that leaves the screen as it was at the write
// is no answer either: a line editor's redraw of its prompt (rlwrap
// clears and rewrites its line before it echoes, and under load the two
// can be more than the quiet period apart). A pipe echoes nothing, and a
// command may print nothing (a silent turn): once the pipe is empty the
// program took the input, and its prompt line stands.
func (p *Process) unansweredWrite(v inputView) bool {
	if v.wrote.at.IsZero() {
		return false
	}
	if !p.TTY {
		return v.outputs == v.wrote.outputs && (!v.wrote.written || p.proc.Typeahead())
	}
	if v.outputs == v.wrote.outputs {
		return true
	}
	p.mu.Lock()
	sum, known := p.out.screenSum()
	p.mu.Unlock()
	return known && v.wrote.screenKnown && sum == v.wrote.screen
}

// frame is what a dialog draws left of its fields: borders and padding.
const frame = " \t|│┃║▌▐█"

// dialogPrompt returns, while a full-screen program runs, the text left of
// the cursor on its row of the rendered screen, without the dialog's
// frame: "Passphrase: " for pinentry-curses' entry field.
func (p *Process) dialogPrompt() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := p.out.screen(false) // redacted; nil unless full-screen
	if s == nil || s.CursorY < 0 || s.CursorY >= len(s.Lines) {
		return ""
	}
	row := []rune(s.Lines[s.CursorY])
	row = row[:min(max(s.CursorX, 0), len(row))]
	return strings.TrimLeft(string(row), frame)
}

// relayUnanswered reports whether a reader seen through a relay may still
// be the one from before the last write: nothing was printed since, and
// the write is younger than the quiet period. A relay passes what is
// written on in steps the kernel cannot show as typeahead on our
// terminal (tmux's server reads it and writes the pane later), so the
// settled output before the write does not make the read a new one.
func (p *Process) relayUnanswered(pr prompt.Probe, v inputView) bool {
	return pr.Relay != nil && !v.wrote.at.IsZero() && v.outputs == v.wrote.outputs &&
		time.Since(v.wrote.at) < p.timing.quietPeriod
}

// errRelayModes: the settings of a terminal a relay holds could not be
// read.
var errRelayModes = errors.New("read the relayed terminal's modes: not known")

// modes reports whether what is typed now is echoed, and whether the
// reader takes whole lines: the command's terminal's settings, and for a
// reader seen through relays (rl) the inner terminals' too, since what is
// typed crosses them all. A pipe echoes nothing.
func (p *Process) modes(rl *prompt.Relay) (echo, canonical bool, err error) {
	if p.TTY {
		if echo, canonical, err = p.proc.Modes(); err != nil {
			return false, false, err
		}
	}
	if rl == nil {
		return echo, canonical, nil
	}
	if !rl.ModesKnown {
		return false, false, errRelayModes
	}
	return echo || rl.Echo, rl.Canonical, nil
}

// lineReadNoEcho reports whether the terminal reads whole lines with its
// echo off: what is typed there is not shown, whoever reads it.
func (p *Process) lineReadNoEcho() bool {
	if !p.TTY {
		return false
	}
	echo, canonical, err := p.proc.Modes()
	return err == nil && !echo && canonical
}

// unchangedSince reports whether every byte the program wrote before the
// kernel was asked is in the log the view v was taken from: none waits in
// the terminal, none is held by a reader between its read and the log, and
// none was appended since. Checked after asking the kernel, this leaves no
// window in which a program is seen waiting while its prompt is not yet
// visible.
func (p *Process) unchangedSince(v inputView) bool {
	if p.proc.Pending() {
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
//
// A pipe has no echo and no such asynchrony: every byte of a write that
// returned is in the pipe, so a reader blocked while the pipe is empty
// has taken all of it and waits again, whether or not it printed (a
// command with no output: ed's, sqlite3's create table).
func (p *Process) staleReader(t prompt.Task, v inputView) bool {
	if v.wrote.at.IsZero() || v.quiet >= p.timing.quietPeriod {
		return false
	}
	if !p.TTY && v.wrote.written && !p.proc.Typeahead() {
		return false
	}
	if v.outputs == v.wrote.outputs {
		return true
	}
	if t != v.wrote.reader {
		return false
	}
	n, ok := p.in.prober.Switches(t)
	return ok && n == v.wrote.switches
}

// inspect asks the kernel what the program's foreground is doing, and,
// when nothing there computes or reads, the rest of its tree (found by
// parentage and by its tag).
func (p *Process) inspect() prompt.Probe {
	in := prompt.Input{Session: p.Pid, Path: p.proc.InputPath(), Tag: tagKey + "=" + p.tag}
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

// beforeWrite records the state a write is about to change, and returns
// a function that records its return.
func (p *Process) beforeWrite() (written func()) {
	p.mu.Lock()
	w := wrote{at: time.Now(), outputs: p.in.outputs, prompts: p.in.marks.prompts, exits: p.in.marks.exits, reader: p.in.reader}
	w.screen, w.screenKnown = p.out.screenSum()
	p.mu.Unlock()
	if w.reader != (prompt.Task{}) {
		w.switches, _ = p.in.prober.Switches(w.reader)
	}
	p.mu.Lock()
	p.in.wrote = w
	p.mu.Unlock()
	return func() {
		p.mu.Lock()
		if p.in.wrote.at.Equal(w.at) {
			p.in.wrote.written = true
		}
		p.mu.Unlock()
	}
}

// Write sends input to the process.
func (p *Process) Write(ctx context.Context, input []byte, closeInput bool) error {
	p.mu.Lock()
	over, held := p.lc.over(), p.human.holds > 0
	p.mu.Unlock()
	if over {
		return p.notRunning()
	}
	if held {
		return ErrHeld // a person types now (human.go)
	}
	written := p.beforeWrite()
	if len(input) > 0 {
		if err := p.writeInput(ctx, input); err != nil {
			return err
		}
	}
	written()
	if closeInput {
		return p.proc.CloseInput()
	}
	return nil
}

// writeInput writes typed input. An integrated shell at its prompt gets
// it through pty.Process.WriteCommand, which first discards replies to
// queries that nobody read and that its line editor would otherwise take
// for keys typed ahead of the command (issue 30 item 1); what was typed and
// is still unread stays.
func (p *Process) writeInput(ctx context.Context, input []byte) error {
	p.mu.Lock()
	atPrompt := p.TTY && p.in.integrated && p.in.marks.atPrompt
	p.mu.Unlock()
	if atPrompt {
		return p.proc.WriteCommand(ctx, input)
	}
	return p.proc.WriteInput(ctx, input)
}

// shellReady reports whether an integrated shell waits at its prompt for a
// command: a prompt (B mark) newer than the last write, or the same prompt
// once the output settled after a write of a partial line. Lines written
// at once, or typed while a command ran, reach the shell one by one, and
// it prints a prompt before each, so the prompt alone does not say the
// shell is done: it is only if nothing written waits unread in the
// terminal, the shell is not busy (it may have read the next lines into
// its own buffer: bash, zsh and fish all do) and no output came since the
// prompt.
func (p *Process) shellReady(v inputView) bool {
	ms := v.marks
	if !ms.atPrompt || ms.prompts == v.wrote.prompts && v.quiet < p.timing.quietPeriod {
		return false
	}
	if p.shellBusy() || p.proc.Pending() {
		return false
	}
	return p.unchangedSince(v)
}

// shellBusy: input waits unread in the terminal, or the shell itself (not
// the jobs its group may hold) is not waiting for input.
func (p *Process) shellBusy() bool {
	if p.proc.Typeahead() {
		return true
	}
	if !p.in.integrated {
		// Marks from a shell of the user's own setup: which process is
		// the shell is not known, so its prompt mark is taken as it is.
		return false
	}
	in := prompt.Input{Session: p.Pid, Only: p.Pid, Path: p.proc.InputPath()}
	return in.Path != "" && p.in.prober.Inspect(in).Activity == prompt.Busy
}

// Type sends text, then keys, then Enter if newline, then end of input if
// closeInput: what a person types. In pipe mode there is no terminal to
// turn keys into signals, so Ctrl-C, Ctrl-Z and Ctrl-\ signal the process
// group and Ctrl-D closes stdin; other keys are written as their bytes.
func (p *Process) Type(ctx context.Context, text string, keys []string, newline, closeInput bool) error {
	p.mu.Lock()
	appCursor := p.out.appCursor()
	p.mu.Unlock()
	data := []byte(text)
	for _, k := range keys {
		b, err := pty.KeyBytes(k, appCursor)
		if err != nil {
			return err
		}
		if !p.TTY && len(b) == 1 {
			if sig, ok := pty.PipeSignal(b[0]); ok {
				if err := p.Write(ctx, data, false); err != nil {
					return err
				}
				data = data[:0]
				if err := p.proc.Signal(sig); err != nil {
					return fmt.Errorf("sending %s: %w", SignalName(sig), err)
				}
				continue
			}
			if b[0] == 0x04 {
				closeInput = true
				continue
			}
		}
		data = append(data, b...)
	}
	if newline {
		if p.TTY {
			data = append(data, '\r')
		} else {
			data = append(data, '\n')
		}
	}
	return p.Write(ctx, data, closeInput)
}

// editorTail is how much of the log above the cursor looksLikePrompt
// reads for a REPL in a mode without a prompt.
const editorTail = 8 << 10

// looksLikePrompt is [prompt.LooksLikePrompt] for the line the cursor is
// on, and, when that line has no prompt, the lines above it for a REPL
// reading in a mode without one (node's .editor, [prompt.InEditorMode]).
func (p *Process) looksLikePrompt(line string) (prompt.Kind, bool) {
	if kind, ok := prompt.LooksLikePrompt(line); ok {
		return kind, true
	}
	p.mu.Lock()
	// What a read would show: the log, then what is on the screen but not
	// in the log yet. It ends with the cursor's own line.
	text := append([]byte(nil), p.log.ReadTail(editorTail, Stdout).Stdout...)
	text = p.out.pending(text)
	p.mu.Unlock()
	above := strings.Split(string(text), "\n")
	above = above[:len(above)-1]
	if prompt.InEditorMode(above) {
		return prompt.KindLine, true
	}
	return "", false
}
