package prompt

import (
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/yieldshell/yieldshell/screen"
)

// Observation is what is known of a program at one instant, cheap to take
// all at once (under its owner's lock): the rest, which costs a system
// call or a read of the log, [Evidence] answers when the decision needs it.
type Observation struct {
	// Over: the program ended, or its standard input is still being fed
	// to it; nothing waits then.
	Over bool
	// TTY: the program runs under a terminal, not with pipes.
	TTY bool
	// Integrated: the program is a shell whose marks were set up for it,
	// so its pid is the shell's own (see [Evidence.Probe]).
	Integrated bool
	// ProbeAfter is how long the output must have been quiet before the
	// kernel is asked; the marks always count.
	ProbeAfter time.Duration
	// Quiet is the time since the newest output or write, whichever came
	// last: what was on the screen before a write says nothing of the
	// answer.
	Quiet time.Duration
	// Line is the line the cursor is on (taken once Quiet reaches
	// ProbeAfter), and AtEnd whether the cursor is at its end.
	Line  string
	AtEnd bool
	// Outputs counts the pieces of output read so far.
	Outputs uint64
	// What an integrated shell's marks ([Mark]) said: a prompt end (B)
	// with no command start (C) since (AtPrompt), a command start with no
	// end (D) since (Running), the prompt ends so far, and the line the
	// newest one ended.
	AtPrompt, Running bool
	Prompts           uint64
	ShellPrompt       string
	// Wrote is the newest write.
	Wrote Write
}

// Write is what the newest write found, so that a decision after it does
// not take the state from before it for an answer.
type Write struct {
	At      time.Time // zero: nothing was written
	Outputs uint64    // Observation.Outputs before it
	Prompts uint64    // Observation.Prompts before it
	// Reader is the thread that was blocked reading ([Detector.Reader]),
	// if any, and Switches its context switches then.
	Reader   Task
	Switches uint64
	// Written: the write returned, so all of it is in the terminal or the
	// pipe.
	Written bool
	// Screen digests what the screen showed before it (ScreenKnown:
	// under a terminal), so that a redraw of the same is no answer.
	Screen      uint64
	ScreenKnown bool
}

// Evidence is what a decision asks of the program's surroundings only when
// it needs it: the kernel, the terminal and the log.
type Evidence interface {
	// Probe asks the kernel what the program's foreground is doing (and,
	// when nothing there computes or reads, the rest of its tree); shell:
	// what the shell process alone does. Unknown when it cannot be asked.
	Probe(shell bool) Probe
	// Switches is how many times thread t has given up the CPU to wait.
	Switches(t Task) (uint64, bool)
	// Listening returns the TCP ports the program's tree listens on.
	Listening() []int
	// Programs names the processes that could read the terminal, or, for
	// a reader seen through relays (rl), the inner terminal.
	Programs(rl *Relay) []string
	// Pending: output waits in the terminal (or pipe), not read yet.
	Pending() bool
	// Typeahead: input waits there, not read by the program yet.
	Typeahead() bool
	// Modes returns the terminal's echo and canonical (line) mode.
	Modes() (echo, canonical bool, err error)
	// Replying: a reply to a query the program sent its terminal is on
	// its way to it, or waits unread in the terminal. Asked before the
	// kernel: when it reports false, every reply written was read.
	Replying() bool
	// Unchanged: every byte the program wrote so far is in the log the
	// observation was taken from (none pending, none held by a reader,
	// none appended since).
	Unchanged() bool
	// ScreenSum digests what the screen shows now (false: no screen).
	ScreenSum() (uint64, bool)
	// Screen renders what a person would see: the terminal, or in pipe
	// mode the tail of the output; nil when there is none.
	Screen() *screen.Styled
	// CursorRow is, while a full-screen program runs, the text left of
	// the cursor on its row; "" otherwise.
	CursorRow() string
	// Tail returns up to n bytes of the output that ends with the line
	// the cursor is on.
	Tail(n int) string
}

// Detector decides, for one program, whether it waits for input. It
// remembers what it saw between decisions (the thread last seen reading,
// the newest timed wait); its zero value is ready to use, and it is safe
// for concurrent use.
type Detector struct {
	mu     sync.Mutex
	reader Task      // the thread last seen blocked reading the input
	timed  timedWait // the newest timed wait seen (timerNotTheLine)
}

// timedWait is a thread seen in a timed wait on the input: its context
// switches then, the output reads so far, when its timer ends as far as
// known (between lo and hi), and whether that timer was seen before the
// newest output.
type timedWait struct {
	task     Task
	switches uint64
	outputs  uint64
	lo, hi   time.Time
	old      bool
}

// Reader returns the thread last seen blocked reading the input, for a
// write to record ([Write.Reader]).
func (d *Detector) Reader() Task {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.reader
}

// servingQuiet is how long a program that reads its terminal while it
// listens must have printed nothing before it counts as serving: a REPL
// client whose child listens (node inspect's debuggee) prints its prompt
// soon after its child's banner, a dev server prints nothing more once it
// is up.
const servingQuiet = 500 * time.Millisecond

// Decide says whether the program o was observed from waits for input,
// for what, and on what evidence. A verdict that needs the kernel counts
// only if nothing changed since o was taken ([Evidence.Unchanged]).
func (d *Detector) Decide(o Observation, e Evidence) State {
	st := d.decide(o, e)
	if st.Waiting {
		st.Confidence = st.Signal.Confidence()
	}
	return st
}

func (d *Detector) decide(o Observation, e Evidence) State {
	if o.Over {
		return State{}
	}
	if st, decided := byMarks(o, e); decided {
		return st
	}
	if o.Quiet < o.ProbeAfter {
		// A program still printing is not waiting.
		return State{}
	}
	if e.Pending() {
		// Output not read yet (a busy server): the program is still
		// printing, and asking the kernel now would only add to the load.
		return State{}
	}
	if e.Replying() {
		// A program reading its terminal right after a query waits for
		// the reply, which is on its way, not for input. Asked before
		// the kernel is: a reader seen asleep after the reply was
		// written may not have been scheduled since, and take it next.
		return State{}
	}
	pr := e.Probe(false)
	if (pr.Activity != Busy || pr.Timed) && !e.Unchanged() {
		// Output arrived, or is on its way to the log, while the kernel
		// was asked: it may be the prompt the program now waits at, so
		// the answer waits for it.
		return State{}
	}
	return describe(pr, o, e, d.byKernel(pr, o, e))
}

// byMarks is what an integrated shell's marks say, if they decide.
func byMarks(o Observation, e Evidence) (State, bool) {
	if shellReady(o, e) {
		return State{Waiting: true, Kind: KindCommand, Signal: SignalMark, Prompt: o.ShellPrompt}, true
	}
	if o.Prompts > 0 && !o.Running {
		// An integrated shell between a command's end and its next prompt:
		// the B mark, not the shell's own read, says when it is ready.
		return State{}, true
	}
	return State{}, false
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
func shellReady(o Observation, e Evidence) bool {
	if !o.AtPrompt || o.Prompts == o.Wrote.Prompts && o.Quiet < QuietPeriod {
		return false
	}
	if shellBusy(o, e) || e.Pending() {
		return false
	}
	return e.Unchanged()
}

// shellBusy: input waits unread in the terminal, or the shell itself (not
// the jobs its group may hold) is not waiting for input.
func shellBusy(o Observation, e Evidence) bool {
	if e.Typeahead() {
		return true
	}
	if !o.Integrated {
		// Marks from a shell of the user's own setup: which process is
		// the shell is not known, so its prompt mark is taken as it is.
		return false
	}
	return e.Probe(true).Activity == Busy
}

// byKernel is what the kernel's probe says, with the line the cursor is
// on.
func (d *Detector) byKernel(pr Probe, o Observation, e Evidence) State {
	switch pr.Activity {
	case Reading:
		return d.byRead(pr, o, e)
	case Busy:
		return d.byTimedWait(pr, o, e)
	case Polling, Unknown:
		if o.Quiet < QuietPeriod || !o.AtEnd || unansweredWrite(o, e) {
			return State{}
		}
		if kind, ok := promptOrEditor(o.Line, e); ok {
			st := State{Waiting: true, Kind: kind, Signal: SignalQuiet, Prompt: o.Line}
			if kind == KindPassword && pr.Activity == Unknown && lineReadNoEcho(o, e) {
				st.Signal = SignalTTYMode
			}
			return st
		}
	}
	return State{}
}

// byRead is what a thread blocked reading the input says.
func (d *Detector) byRead(pr Probe, o Observation, e Evidence) State {
	// Typeahead: a program blocked reading its terminal while input waits
	// there unread has not been scheduled since (a loaded machine);
	// asking also makes the terminal hand over what the server wrote, so
	// a Ctrl-C written reaches the program first.
	if staleReader(pr.Reader, o, e) || e.Typeahead() || relayUnanswered(pr, o) {
		return State{}
	}
	d.mu.Lock()
	d.reader = pr.Reader
	d.mu.Unlock()
	st := State{Waiting: true, Kind: KindLine, Signal: SignalTTY, Prompt: o.Line}
	if pr.Relay != nil {
		st.Signal, st.Relay = SignalRelay, pr.Relay
	} else if !o.TTY {
		st.Signal = SignalStdin
		if k, ok := looksLikePrompt(o.Line); ok && k == KindPassword {
			st.Kind = k
		}
		return st
	}
	echo, canonical, err := modes(o.TTY, e, pr.Relay)
	switch {
	case err != nil || echo:
	case canonical || maskedPassword(o.Line):
		// Echo off, and a line read (getpass, read -s), or a line editor
		// in mask mode: raw, one '*' per key.
		st.Kind = KindPassword
	case o.Line == "":
		// A full-screen dialog (pinentry-curses, whiptail's password
		// box): its prompt is left of the cursor on the screen, not in
		// the log.
		if p := dialogPrompt(e); maskedPassword(p) {
			st.Kind, st.Prompt = KindPassword, p
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
func (d *Detector) byTimedWait(pr Probe, o Observation, e Evidence) State {
	if !pr.Timed || o.Quiet < QuietPeriod || !o.AtEnd {
		return State{}
	}
	repl := isREPLPrompt(o.Line) || strings.TrimSpace(o.Line) == ""
	if notLine := d.timerNotTheLine(pr, o, e); !repl && !notLine && !asksAnswer(o.Line) || unansweredWrite(o, e) {
		return State{}
	}
	if kind, ok := promptOrEditor(o.Line, e); ok {
		return State{Waiting: true, Kind: kind, Signal: SignalQuiet, Prompt: o.Line}
	}
	return State{}
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
func (d *Detector) timerNotTheLine(pr Probe, o Observation, e Evidence) bool {
	n, counted := e.Switches(pr.Waiter)
	now := time.Now()
	// The wait began between the newest output and now, so its timer
	// ends between these two.
	lo, hi := now.Add(-o.Quiet-timerSlack+pr.Timeout), now.Add(pr.Timeout)
	d.mu.Lock()
	defer d.mu.Unlock()
	seen := &d.timed
	switch {
	case seen.task == pr.Waiter && seen.outputs == o.Outputs:
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
		*seen = timedWait{task: pr.Waiter, switches: n, outputs: o.Outputs, lo: lo, hi: hi, old: old}
		return old
	}
	*seen = timedWait{task: pr.Waiter, switches: n, outputs: o.Outputs, lo: lo, hi: hi}
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
func unansweredWrite(o Observation, e Evidence) bool {
	w := o.Wrote
	if w.At.IsZero() {
		return false
	}
	if !o.TTY {
		return o.Outputs == w.Outputs && (!w.Written || e.Typeahead())
	}
	if o.Outputs == w.Outputs {
		return true
	}
	sum, known := e.ScreenSum()
	return known && w.ScreenKnown && sum == w.Screen
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
func staleReader(t Task, o Observation, e Evidence) bool {
	w := o.Wrote
	if w.At.IsZero() || o.Quiet >= QuietPeriod {
		return false
	}
	if !o.TTY && w.Written && !e.Typeahead() {
		return false
	}
	if o.Outputs == w.Outputs {
		return true
	}
	if t != w.Reader {
		return false
	}
	n, ok := e.Switches(t)
	return ok && n == w.Switches
}

// relayUnanswered reports whether a reader seen through a relay may still
// be waiting for the relay rather than for input: nothing was printed
// since the last write (or since the start), or nothing shows on the
// cursor's line, and that is younger than the quiet period. A relay passes
// things on in steps the kernel cannot show on our terminal: what is
// written (tmux's server reads it and writes the pane later), and what the
// inner program printed (rlwrap holds a prompt it read until it is sure
// the prompt is whole, after printing only its terminal set-up), so a read
// on the inner terminal with nothing shown on ours yet is not an answer.
func relayUnanswered(pr Probe, o Observation) bool {
	return pr.Relay != nil && o.Quiet < QuietPeriod &&
		(o.Outputs == o.Wrote.Outputs || strings.TrimSpace(o.Line) == "")
}

// errRelayModes: the settings of a terminal a relay holds could not be
// read.
var errRelayModes = errors.New("reading the relayed terminal's modes: not known")

// Through returns the modes a reader seen through the relay meets, given
// the program's own terminal's (echo, canonical): what is typed is echoed
// if any terminal it crosses echoes, and taken in whole lines if the inner
// terminal reads lines.
func (rl *Relay) Through(echo, canonical bool) (bool, bool, error) {
	if !rl.ModesKnown {
		return false, false, errRelayModes
	}
	return echo || rl.Echo, rl.Canonical, nil
}

// modes reports whether what is typed now is echoed, and whether the
// reader takes whole lines: the program's terminal's settings (tty: it
// runs under one; a pipe echoes nothing), and for a reader seen through
// relays (rl) the inner terminals' too.
func modes(tty bool, e Evidence, rl *Relay) (echo, canonical bool, err error) {
	if tty {
		if echo, canonical, err = e.Modes(); err != nil {
			return false, false, err
		}
	}
	if rl == nil {
		return echo, canonical, nil
	}
	return rl.Through(echo, canonical)
}

// lineReadNoEcho reports whether the terminal reads whole lines with its
// echo off: what is typed there is not shown, whoever reads it.
func lineReadNoEcho(o Observation, e Evidence) bool {
	if !o.TTY {
		return false
	}
	echo, canonical, err := e.Modes()
	return err == nil && !echo && canonical
}

// frame is what a dialog draws left of its fields: borders and padding.
const frame = " \t|│┃║▌▐█"

// dialogPrompt returns, while a full-screen program runs, the text left of
// the cursor on its row, without the dialog's frame: "Passphrase: " for
// pinentry-curses' entry field.
func dialogPrompt(e Evidence) string {
	return strings.TrimLeft(e.CursorRow(), frame)
}

// editorTail is how much of the output above the cursor promptOrEditor
// reads for a REPL in a mode without a prompt.
const editorTail = 8 << 10

// promptOrEditor is looksLikePrompt for the line the cursor is on, and,
// when that line has no prompt, the lines above it for a REPL reading in a
// mode without one (node's .editor, inEditorMode).
func promptOrEditor(line string, e Evidence) (Kind, bool) {
	if kind, ok := looksLikePrompt(line); ok {
		return kind, true
	}
	above := strings.Split(e.Tail(editorTail), "\n")
	if inEditorMode(above[:len(above)-1]) {
		return KindLine, true
	}
	return "", false
}
