package prompt

import (
	"errors"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/yieldshell/yieldshell/screen"
)

// evidence is a recorded answer to every question a decision may ask.
type evidence struct {
	probe, shell       Probe // Probe(false), Probe(true)
	switches           func() uint64
	ports              []int
	pending, typeahead bool
	replying, changed  bool // changed: Unchanged is false
	echo, raw          bool
	modesErr           error
	sum                uint64
	sumKnown           bool
	screen             string // rendered at 80x24 when set
	cursorRow, tail    string
	asked              []string // the questions asked, in order
}

func (e *evidence) ask(q string) { e.asked = append(e.asked, q) }

func (e *evidence) Probe(shell bool) Probe {
	e.ask("probe")
	if shell {
		return e.shell
	}
	return e.probe
}

func (e *evidence) Switches(Task) (uint64, bool) {
	e.ask("switches")
	if e.switches == nil {
		return 0, false
	}
	return e.switches(), true
}

func (e *evidence) Listening() []int         { e.ask("listening"); return e.ports }
func (e *evidence) Programs(*Relay) []string { e.ask("programs"); return nil }
func (e *evidence) Pending() bool            { e.ask("pending"); return e.pending }
func (e *evidence) Typeahead() bool          { e.ask("typeahead"); return e.typeahead }
func (e *evidence) Replying() bool           { e.ask("replying"); return e.replying }
func (e *evidence) Unchanged() bool          { e.ask("unchanged"); return !e.changed }
func (e *evidence) CursorRow() string        { e.ask("cursor row"); return e.cursorRow }
func (e *evidence) Tail(int) string          { e.ask("tail"); return e.tail }

func (e *evidence) Modes() (bool, bool, error) {
	e.ask("modes")
	return e.echo, !e.raw, e.modesErr
}

func (e *evidence) ScreenSum() (uint64, bool) { e.ask("screen sum"); return e.sum, e.sumKnown }

func (e *evidence) Screen() *screen.Styled {
	e.ask("screen")
	if e.screen == "" {
		return nil
	}
	s := screen.New(80, 24)
	_, _ = s.Write([]byte(e.screen))
	st := s.Styled()
	return &st
}

// quiet is a program under a terminal whose output, ending in line with
// the cursor after it, has been quiet for a second, with nothing written.
func quiet(line string) Observation {
	return Observation{TTY: true, ProbeAfter: 5 * time.Millisecond, Quiet: time.Second, Line: line, AtEnd: true, Outputs: 3}
}

// with returns o changed by f.
func with(o Observation, f func(*Observation)) Observation {
	f(&o)
	return o
}

var (
	reading = Probe{Activity: Reading, Reader: Task{Pid: 7, Tid: 7}}
	polling = Probe{Activity: Polling}
	timed   = Probe{Activity: Busy, Timed: true, Waiter: Task{Pid: 7, Tid: 7}}
	// written is a write that returned after the third output, with
	// reading's thread blocked then.
	written = Write{At: time.Unix(1, 0), Outputs: 3, Written: true, Reader: reading.Reader, Switches: 4}
)

// TestDecide: the whole decision, from recorded observations and what the
// kernel, the terminal and the log answered.
func TestDecide(t *testing.T) {
	tests := []struct {
		name string
		o    Observation
		e    evidence
		want State // Grammar is compared by its Kind only
	}{
		{"ended", with(quiet(">>> "), func(o *Observation) { o.Over = true }), evidence{probe: reading}, State{}},
		{"still printing", with(quiet(">>> "), func(o *Observation) { o.Quiet = time.Millisecond }), evidence{probe: reading}, State{}},

		// The kernel shows a reader.
		{"reading, echo on", quiet(">>> "), evidence{probe: reading, echo: true},
			State{Waiting: true, Kind: KindLine, Signal: SignalTTY, Prompt: ">>> ", Confidence: ConfidenceHigh}},
		{"reading lines with echo off (getpass)", quiet("Password: "), evidence{probe: reading},
			State{Waiting: true, Kind: KindPassword, Signal: SignalTTY, Prompt: "Password: ", Confidence: ConfidenceHigh}},
		{"reading raw with echo off, masked", quiet("Password: **"), evidence{probe: reading, raw: true},
			State{Waiting: true, Kind: KindPassword, Signal: SignalTTY, Prompt: "Password: **", Confidence: ConfidenceHigh}},
		{"reading raw with echo off, a dialog's field", quiet(""), evidence{probe: reading, raw: true, cursorRow: "│ Passphrase: "},
			State{Waiting: true, Kind: KindPassword, Signal: SignalTTY, Prompt: "Passphrase: ", Confidence: ConfidenceHigh}},
		{"reading a pipe, a password prompt", with(quiet("Password: "), func(o *Observation) { o.TTY = false }), evidence{probe: reading, echo: true},
			State{Waiting: true, Kind: KindPassword, Signal: SignalStdin, Prompt: "Password: ", Confidence: ConfidenceHigh}},
		{"reading with typeahead (not scheduled since the write)", quiet(">>> "), evidence{probe: reading, echo: true, typeahead: true}, State{}},
		{"reading, nothing printed since the write", with(quiet(">>> "), func(o *Observation) { o.Quiet, o.Wrote = 50*time.Millisecond, written }),
			evidence{probe: reading, echo: true}, State{}},
		{"reading, the thread blocked at the write has not woken", with(quiet(">>> "), func(o *Observation) { o.Quiet, o.Outputs, o.Wrote = 50*time.Millisecond, 4, written }),
			evidence{probe: reading, echo: true, switches: func() uint64 { return 4 }}, State{}},
		{"reading, the thread woke since the write", with(quiet(">>> "), func(o *Observation) { o.Quiet, o.Outputs, o.Wrote = 50*time.Millisecond, 4, written }),
			evidence{probe: reading, echo: true, switches: func() uint64 { return 5 }},
			State{Waiting: true, Kind: KindLine, Signal: SignalTTY, Prompt: ">>> ", Confidence: ConfidenceHigh}},
		{"reading a pipe that took the write, silent turn", with(quiet("sqlite> "), func(o *Observation) { o.TTY, o.Quiet, o.Wrote = false, 50*time.Millisecond, written }),
			evidence{probe: reading}, State{Waiting: true, Kind: KindLine, Signal: SignalStdin, Prompt: "sqlite> ", Confidence: ConfidenceHigh}},

		// Nothing is asked of the kernel, or its answer does not count.
		{"output not read yet", quiet(">>> "), evidence{probe: reading, pending: true}, State{}},
		{"a reply to a query on its way", quiet(">>> "), evidence{probe: reading, replying: true}, State{}},
		{"output arrived while the kernel was asked", quiet(">>> "), evidence{probe: reading, changed: true}, State{}},
		{"busy", quiet("Continue? [y/N] "), evidence{probe: Probe{Activity: Busy}}, State{}},

		// The line's shape, after the quiet period.
		{"polling at a question", quiet("Continue? [y/N] "), evidence{probe: polling},
			State{Waiting: true, Kind: KindConfirm, Signal: SignalQuiet, Prompt: "Continue? [y/N] ", Confidence: ConfidenceLow}},
		{"polling, before the quiet period", with(quiet("Continue? [y/N] "), func(o *Observation) { o.Quiet = 100 * time.Millisecond }), evidence{probe: polling}, State{}},
		{"polling, the cursor inside the line", with(quiet("Continue? [y/N] "), func(o *Observation) { o.AtEnd = false }), evidence{probe: polling}, State{}},
		{"polling on a line that is no prompt", quiet("Downloading 45%"), evidence{probe: polling}, State{}},
		{"polling, no output since the write", with(quiet("Name: "), func(o *Observation) { o.Wrote = written }), evidence{probe: polling}, State{}},
		{"polling, output since the write redrew the same screen", with(quiet("Name: "), func(o *Observation) {
			o.Outputs, o.Wrote = 4, Write{At: written.At, Outputs: 3, Screen: 99, ScreenKnown: true}
		}), evidence{probe: polling, sum: 99, sumKnown: true}, State{}},
		{"polling, a pipe that took the write", with(quiet("Name: "), func(o *Observation) { o.TTY, o.Wrote = false, written }), evidence{probe: polling},
			State{Waiting: true, Kind: KindLine, Signal: SignalQuiet, Prompt: "Name: ", Confidence: ConfidenceLow}},
		{"node's .editor: no prompt, the banner above", quiet(""),
			evidence{probe: polling, tail: "> .editor\n// Entering editor mode (Ctrl+D to finish, Ctrl+C to cancel)\n"},
			State{Waiting: true, Kind: KindLine, Signal: SignalQuiet, Confidence: ConfidenceLow}},

		// Secrets: where the reader is unseen, only a terminal reading
		// lines with echo off takes one.
		{"unknown reader, lines, echo off (sudo)", quiet("[sudo] password for ada: "), evidence{},
			State{Waiting: true, Kind: KindPassword, Signal: SignalTTYMode, Prompt: "[sudo] password for ada: ", Confidence: ConfidenceMedium}},
		{"unknown reader, raw, echo off (ssh, readline)", quiet("[sudo] password for ada: "), evidence{raw: true},
			State{Waiting: true, Kind: KindPassword, Signal: SignalQuiet, Prompt: "[sudo] password for ada: ", Confidence: ConfidenceLow}},
		{"unknown reader, lines, echo on", quiet("[sudo] password for ada: "), evidence{echo: true},
			State{Waiting: true, Kind: KindPassword, Signal: SignalQuiet, Prompt: "[sudo] password for ada: ", Confidence: ConfidenceLow}},
		{"polling several descriptors, lines, echo off", quiet("[sudo] password for ada: "), evidence{probe: polling},
			State{Waiting: true, Kind: KindPassword, Signal: SignalQuiet, Prompt: "[sudo] password for ada: ", Confidence: ConfidenceLow}},

		// Serving.
		{"reading, listening", quiet(""), evidence{probe: reading, echo: true, ports: []int{5173}}, State{Ready: true, Ports: []int{5173}}},
		{"reading, listening, too soon to tell", with(quiet(""), func(o *Observation) { o.Quiet = 200 * time.Millisecond }),
			evidence{probe: reading, echo: true, ports: []int{5173}}, State{}},
		{"reading under a shortcut hint", quiet(""), evidence{probe: reading, echo: true, tail: "  press h + enter to show help\n"}, State{Ready: true}},
		{"a question from a server is still one", quiet("Continue? [y/N] "), evidence{probe: reading, echo: true, ports: []int{9229}},
			State{Waiting: true, Kind: KindConfirm, Signal: SignalTTY, Prompt: "Continue? [y/N] ", Confidence: ConfidenceHigh}},
		{"a debugger's own prompt from a server", quiet("debug> "), evidence{probe: reading, echo: true, ports: []int{9229}},
			State{Waiting: true, Kind: KindLine, Signal: SignalTTY, Prompt: "debug> ", Confidence: ConfidenceHigh}},

		// An integrated shell's marks.
		{"a shell at its prompt", marked(with(quiet("$ "), func(o *Observation) { o.AtPrompt, o.Prompts = true, 2 })), evidence{probe: reading},
			State{Waiting: true, Kind: KindCommand, Signal: SignalMark, Prompt: "$ ", Confidence: ConfidenceHigh}},
		{"a shell at its prompt, lines still queued", marked(with(quiet("$ "), func(o *Observation) { o.AtPrompt, o.Prompts = true, 2 })),
			evidence{probe: reading, typeahead: true}, State{}},
		{"a shell at its prompt, busy with lines it read", marked(with(quiet("$ "), func(o *Observation) { o.AtPrompt, o.Prompts = true, 2 })),
			evidence{probe: reading, shell: Probe{Activity: Busy}}, State{}},
		{"a shell at the prompt it wrote before the write", marked(with(quiet("$ "), func(o *Observation) {
			o.AtPrompt, o.Prompts, o.Quiet, o.Wrote = true, 2, 50*time.Millisecond, Write{At: written.At, Prompts: 2}
		})), evidence{probe: reading}, State{}},
		{"a shell between a command's end and its prompt", marked(with(quiet("$ "), func(o *Observation) { o.Prompts = 2 })), evidence{probe: reading}, State{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var d Detector
			got := d.Decide(tt.o, &tt.e)
			if got.Waiting && got.Signal != SignalMark && got.Grammar.Kind != got.Kind {
				t.Errorf("grammar kind %q, state kind %q", got.Grammar.Kind, got.Kind)
			}
			got.Grammar = Grammar{}
			if !equalState(got, tt.want) {
				t.Errorf("Decide = %+v\nwant     %+v\nasked %v", got, tt.want, tt.e.asked)
			}
		})
	}
}

// marked is o from an integrated shell, its prompt marked.
func marked(o Observation) Observation {
	o.Integrated, o.ShellPrompt = true, o.Line
	return o
}

func equalState(a, b State) bool {
	return a.Waiting == b.Waiting && a.Kind == b.Kind && a.Signal == b.Signal && a.Prompt == b.Prompt &&
		a.Confidence == b.Confidence && a.Ready == b.Ready && slices.Equal(a.Ports, b.Ports)
}

// TestDecideAsksLazily: a program still printing costs no question at all,
// and a shell's mark no question of the kernel about its jobs.
func TestDecideAsksLazily(t *testing.T) {
	var d Detector
	e := &evidence{probe: reading}
	d.Decide(with(quiet(">>> "), func(o *Observation) { o.Quiet = time.Millisecond }), e)
	if len(e.asked) != 0 {
		t.Errorf("still printing, asked %v", e.asked)
	}
	e = &evidence{probe: reading, modesErr: errors.New("no terminal")}
	if st := d.Decide(quiet(">>> "), e); !st.Waiting || st.Kind != KindLine {
		t.Errorf("modes unknown: %+v, want a line", st)
	}
	if d.Reader() != reading.Reader {
		t.Errorf("Reader() = %v, want the thread seen reading %v", d.Reader(), reading.Reader)
	}
}

// TestTimedWait: an event loop whose wait holds the input and a timer is
// the timer's, unless the line is a REPL's prompt or a question that names
// its answers; what it decides rests on the text.
//
// Spec: issue 32 item 1: "a poll with a finite timeout is a timer unless
// other evidence says otherwise".
func TestTimedWait(t *testing.T) {
	tests := []struct {
		line string
		want bool
	}{
		{"> ", true},
		{">>> ", true},
		{"Signing in as ada: ", false},
		{"Password: ", false},
		// A question that names its answers or a default waits, timer
		// or not: npm init asks under node's start-up timer, and a
		// question with a timeout is still a question.
		{"Continue? [y/N] ", true},
		{"version: (1.0.0) ", true},
		{"Is this OK? ", true},
	}
	for _, tt := range tests {
		var d Detector
		st := d.Decide(quiet(tt.line), &evidence{probe: timed})
		if st.Waiting != tt.want {
			t.Errorf("%q: %+v, want waiting %v", tt.line, st, tt.want)
		}
		if tt.want && (st.Signal != SignalQuiet || st.Confidence != ConfidenceLow) {
			t.Errorf("%q: %+v, want quiet_prompt, low", tt.line, st)
		}
		// Busy without a timer is never waiting.
		if st := d.Decide(quiet(tt.line), &evidence{probe: Probe{Activity: Busy}}); st.Waiting {
			t.Errorf("%q, busy: %+v", tt.line, st)
		}
	}
}

// A loop that wakes from its timer and waits again with nothing printed
// (IPython's 500 ms) waits at its prompt; one whose thread has not woken
// (a sleep after a line) does not, however long it is looked at.
func TestTimedWaitIdleLoop(t *testing.T) {
	for _, wakes := range []bool{true, false} {
		var d Detector
		var n uint64
		e := &evidence{probe: timed, switches: func() uint64 {
			if wakes {
				n++
			}
			return n
		}}
		o := quiet("Signing in as ada: ") // no REPL prompt, and asks nothing
		waiting := false
		for range 5 {
			if st := d.Decide(o, e); st.Waiting {
				waiting = true
				if st.Confidence != ConfidenceLow {
					t.Errorf("wakes=%v: %+v, want low confidence", wakes, st)
				}
			}
		}
		if waiting != wakes {
			t.Errorf("wakes=%v: waiting %v", wakes, waiting)
		}
	}
}

// A timer that outlives a prompt is not the next line's: npm init asks
// "description: " while node's start-up timer, already seen at the
// question before, runs on; a timer armed after the line ("Signing in as
// ada: ", then a 3 s sleep) ends later than any seen before it.
func TestTimedWaitOldTimer(t *testing.T) {
	for _, same := range []bool{true, false} {
		synctest.Test(t, func(t *testing.T) {
			var d Detector
			deadline := time.Now().Add(8 * time.Second)
			e := &evidence{switches: func() uint64 { return 7 }} // never wakes
			ask := func(line string, outputs uint64) State {
				e.probe = timed
				e.probe.Timeout = time.Until(deadline)
				return d.Decide(with(quiet(line), func(o *Observation) { o.Quiet, o.Outputs = 200*time.Millisecond, outputs }), e)
			}
			if st := ask("version: (1.0.0) ", 1); !st.Waiting {
				t.Fatalf("at the question with a default: %+v", st)
			}
			time.Sleep(300 * time.Millisecond)
			if !same {
				deadline = time.Now().Add(3 * time.Second)
			}
			if st := ask("description: ", 2); st.Waiting != same {
				t.Errorf("same timer=%v: %+v, want waiting %v", same, st, same)
			}
		})
	}
}

// TestSignalConfidence: every signal says what it rests on, and a verdict
// from the prompt's text alone says so.
func TestSignalConfidence(t *testing.T) {
	for sig, want := range map[Signal]Confidence{
		SignalMark: ConfidenceHigh, SignalTTY: ConfidenceHigh, SignalStdin: ConfidenceHigh,
		SignalTTYMode: ConfidenceMedium, SignalQuiet: ConfidenceLow, "": "",
	} {
		if got := sig.Confidence(); got != want {
			t.Errorf("%q: %q, want %q", sig, got, want)
		}
	}
}

// TestTakesSecret: a secret is typed only where the kernel shows the read,
// or the terminal reads lines with its echo off; never on the prompt's
// text alone.
func TestTakesSecret(t *testing.T) {
	for sig, takes := range map[Signal]bool{
		SignalTTY: true, SignalStdin: true, SignalTTYMode: true, SignalQuiet: false, SignalMark: false,
	} {
		st := State{Waiting: true, Kind: KindPassword, Signal: sig}
		if st.TakesSecret() != takes {
			t.Errorf("%s: TakesSecret %v, want %v", sig, !takes, takes)
		}
		if !st.AsksPassword() {
			t.Errorf("%s: a password kind does not ask for a password", sig)
		}
	}
	if st := (State{Waiting: true, Kind: KindLine, Signal: SignalTTY, Prompt: "Password: "}); st.TakesSecret() || !st.AsksPassword() {
		t.Errorf("an echoing password line: %+v", st)
	}
}

// A reader seen through a relay (script, tmux, screen) is judged on the
// terminals what is typed crosses: a password when none of them echoes
// and the inner one reads lines, a line when the inner one echoes, and
// never a secret when the inner terminal's modes are unknown.
func TestDecideThroughRelay(t *testing.T) {
	tests := []struct {
		name      string
		outerEcho bool
		outerRaw  bool
		relay     Relay
		wantKind  Kind
		takes     bool
	}{
		{"script: ours raw, inner lines without echo (getpass)", false, true, Relay{Echo: false, Canonical: true, ModesKnown: true}, KindPassword, true},
		{"script: inner echoes (input())", false, true, Relay{Echo: true, Canonical: true, ModesKnown: true}, KindLine, false},
		{"unbuffer without interact: ours echoes", true, false, Relay{Echo: false, Canonical: true, ModesKnown: true}, KindLine, false},
		{"inner raw without echo at a password prompt", false, true, Relay{Echo: false, Canonical: false, ModesKnown: true}, KindPassword, true},
		{"inner modes unknown", false, true, Relay{}, KindLine, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rl := tt.relay
			rl.Terminal, rl.Depth = "/dev/pts/9", 1
			e := evidence{probe: Probe{Activity: Reading, Reader: Task{Pid: 4242, Tid: 4242}, Relay: &rl}, echo: tt.outerEcho, raw: tt.outerRaw}
			var d Detector
			st := d.Decide(quiet("[sudo] password for ada: "), &e)
			if !st.Waiting || st.Signal != SignalRelay || st.Confidence != ConfidenceHigh || st.Relay != &rl {
				t.Fatalf("not waiting through the relay: %+v", st)
			}
			if st.Kind != tt.wantKind || st.TakesSecret() != tt.takes {
				t.Errorf("kind %s, takes a secret %v; want %s, %v", st.Kind, st.TakesSecret(), tt.wantKind, tt.takes)
			}
		})
	}
}

// A relayed read with nothing printed on our terminal since the start (or
// the last write) waits out the quiet period: the relay may still hold
// the inner program's prompt (rlwrap does, until it is sure it is whole).
func TestDecideRelayHoldsThePrompt(t *testing.T) {
	rl := Relay{Terminal: "/dev/pts/9", Depth: 1, ModesKnown: true, Echo: true, Canonical: false}
	e := evidence{probe: Probe{Activity: Reading, Reader: Task{Pid: 4242, Tid: 4242}, Relay: &rl}, echo: true, raw: true}
	fresh := with(quiet(""), func(o *Observation) { o.Outputs, o.Quiet = 0, 20*time.Millisecond })
	var d Detector
	if st := d.Decide(fresh, &e); st.Waiting {
		t.Errorf("nothing printed yet, 20 ms after the start: %+v, want no verdict", st)
	}
	if st := d.Decide(with(fresh, func(o *Observation) { o.Quiet = QuietPeriod }), &e); !st.Waiting || st.Signal != SignalRelay {
		t.Errorf("nothing printed for the quiet period: %+v, want waiting through the relay", st)
	}
	if st := d.Decide(with(fresh, func(o *Observation) { o.Outputs = 1 }), &e); st.Waiting {
		t.Errorf("only the relay's terminal set-up printed, 20 ms after the start: %+v, want no verdict", st)
	}
	if st := d.Decide(with(quiet("calc> "), func(o *Observation) { o.Outputs, o.Quiet = 1, 20*time.Millisecond }), &e); !st.Waiting {
		t.Errorf("the prompt printed: %+v, want waiting", st)
	}
}
