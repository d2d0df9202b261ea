package session

import (
	"fmt"
	"reflect"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/yieldshell/yieldshell/internal/outlog"
	"github.com/yieldshell/yieldshell/internal/policy"
	"github.com/yieldshell/yieldshell/prompt"
	"github.com/yieldshell/yieldshell/pty"
)

// The tests in this file run Await on a Process with no program behind it,
// in a synctest bubble: the clock is fake, so the probe schedule, the quiet
// period and the order of output and probes are exact, not raced.

// bareProcess is a pipe-mode Process with the default timing and no
// goroutines, over a fake engine's process, whose prober is k and whose
// output comes from emit. Call it inside the bubble.
func bareProcess(k Prober) *Process {
	p := &Process{
		timing:  new(defaultTiming(&policy.Config{})),
		changed: make(chan struct{}),
		log:     outlog.New(1 << 16),
		in:      inputTracker{prober: k, lastOutput: time.Now()},
	}
	p.eng.Store(&engineRef{EngineProcess: newFakeProc(1000, pty.Options{})})
	return p
}

// emit appends output the way a stream's reader does.
func (p *Process) emit(s string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.out.append(p.log, Stdout, []byte(s), &scratch{}, false)
	p.in.outputs++
	p.in.lastOutput = time.Now()
	p.broadcast()
}

func ms(n ...int) []time.Duration {
	d := make([]time.Duration, len(n))
	for i, v := range n {
		d[i] = time.Duration(v) * time.Millisecond
	}
	return d
}

// Spec: README "Input-wait detection": the kernel is asked firstProbe after
// the newest output, then at doubling intervals while nothing changes, and
// a prompt-shaped line is counted once it stayed the quiet period.
func TestAwaitProbeSchedule(t *testing.T) {
	tests := []struct {
		name     string
		activity prompt.Activity
		line     string
		want     Outcome
		at       time.Duration   // when Await returns
		asked    []time.Duration // when the kernel is asked
	}{
		{"reading: the first probe answers", prompt.Reading, "name: ",
			Outcome{Reason: ReasonInputWait, Input: InputState{Waiting: true, Kind: prompt.KindLine, Signal: SignalStdin, Prompt: "name: ", Confidence: ConfidenceHigh}},
			5 * time.Millisecond, ms(5)},
		{"polling: the heuristic answers right after the quiet period", prompt.Polling, "Continue? [y/N] ",
			Outcome{Reason: ReasonInputWait, Input: InputState{Waiting: true, Kind: prompt.KindConfirm, Signal: SignalQuiet, Prompt: "Continue? [y/N] ", Confidence: ConfidenceLow}},
			151 * time.Millisecond, ms(5, 15, 35, 75, 151)},
		{"busy: never waiting, probes back off to maxProbe", prompt.Busy, "Continue? [y/N] ",
			Outcome{Reason: ReasonDeadline},
			3 * time.Second, ms(5, 15, 35, 75, 151, 311, 631, 1131, 1631, 2131, 2631)},
		{"polling on a line that is no prompt: never waiting", prompt.Polling, "Downloading 45%",
			Outcome{Reason: ReasonDeadline},
			time.Second, ms(5, 15, 35, 75, 151, 311, 631)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				k := &fakeProber{start: time.Now(), activity: tt.activity}
				p := bareProcess(k)
				p.emit(tt.line)
				// A deadline at the very moment of an answer would race it.
				deadline := 10 * time.Second
				if tt.want.Reason == ReasonDeadline {
					deadline = tt.at
				}
				o := p.Await(t.Context(), time.Now().Add(deadline), Until{InputWait: true})
				o.Input.Grammar = prompt.Grammar{} // prompt's own tests cover it
				o.Reads = 0                        // TestAwaitSeen's
				if !reflect.DeepEqual(o, tt.want) {
					t.Errorf("outcome %+v, want %+v", o, tt.want)
				}
				if got := time.Since(k.start); got != tt.at {
					t.Errorf("answered after %v, want %v", got, tt.at)
				}
				if got := k.times(); !slices.Equal(got, tt.asked) {
					t.Errorf("kernel asked at %v, want %v", got, tt.asked)
				}
			})
		})
	}
}

// New output starts the schedule over: the quiet period counts from the
// newest output, so a progress line followed by a prompt is answered a
// quiet period after the prompt.
func TestAwaitScheduleRestartsOnOutput(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		k := &fakeProber{start: time.Now(), activity: prompt.Polling}
		p := bareProcess(k)
		p.emit("Downloading 45%")
		go func() {
			time.Sleep(100 * time.Millisecond) // fake time: the program prints 100 ms later
			p.emit("\nPassword: ")
		}()
		o := p.Await(t.Context(), time.Now().Add(10*time.Second), Until{InputWait: true})
		if o.Reason != ReasonInputWait || o.Input.Prompt != "Password: " || o.Input.Signal != SignalQuiet {
			t.Fatalf("outcome %+v, want waiting at the password prompt", o)
		}
		if got, want := time.Since(k.start), 251*time.Millisecond; got != want {
			t.Errorf("answered after %v, want %v (the quiet period after the prompt)", got, want)
		}
		if got, want := k.times(), ms(5, 15, 35, 75, 105, 115, 135, 175, 251); !slices.Equal(got, want) {
			t.Errorf("kernel asked at %v, want %v", got, want)
		}
	})
}

// The input-wait race (issue 15), deterministically: the kernel sees the
// program blocked reading while the reader still holds its prompt between
// the terminal read and the log. Await does not answer until the prompt is
// in the log, and then answers with it.
func TestAwaitWaitsForThePromptInFlight(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		k := &fakeProber{start: time.Now()}
		p := bareProcess(k)
		p.emit("loading\n")
		var once sync.Once
		k.script(prompt.Unknown, func(prompt.Input) prompt.Probe {
			once.Do(func() {
				p.in.inFlight.Add(1) // the reader took the prompt from the terminal
				go func() {
					time.Sleep(50 * time.Millisecond) // fake time: it reaches the log later
					p.mu.Lock()
					p.out.append(p.log, Stdout, []byte(">>> "), &scratch{}, false)
					p.in.outputs++
					p.in.lastOutput = time.Now()
					p.in.inFlight.Add(-1)
					p.broadcast()
					p.mu.Unlock()
				}()
			})
			return prompt.Probe{Activity: prompt.Reading}
		})
		o := p.Await(t.Context(), time.Now().Add(10*time.Second), Until{InputWait: true})
		if o.Reason != ReasonInputWait || o.Input.Prompt != ">>> " {
			t.Fatalf("outcome %+v, want waiting at >>> ", o)
		}
		if got, want := time.Since(k.start), 60*time.Millisecond; got != want {
			t.Errorf("answered after %v, want %v (firstProbe after the prompt reached the log)", got, want)
		}
	})
}

// A turn with no output (sqlite3's create table, an ed command): in pipe
// mode the reader blocked again with the pipe empty has taken the whole
// line, so the first probe after the write answers; while the line waits
// unread in the pipe it does not. Under a terminal, the echo is awaited
// instead, up to the quiet period.
func TestAwaitSilentTurn(t *testing.T) {
	tests := []struct {
		name   string
		tty    bool
		unread time.Duration // how long the written line stays unread
		at     time.Duration // when Await answers, after the write
	}{
		{"pipe: the first probe answers", false, 0, 5 * time.Millisecond},
		{"pipe: not while the line is unread", false, 20 * time.Millisecond, 35 * time.Millisecond},
		{"terminal: the quiet period after the write", true, 0, 151 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				k := &fakeProber{start: time.Now(), activity: prompt.Reading}
				p := bareProcess(k)
				p.TTY = tt.tty
				p.eng.Store(&engineRef{EngineProcess: newFakeProc(1000, pty.Options{TTY: tt.tty})})
				p.emit("sqlite> ")
				time.Sleep(time.Second) // fake time: the prompt has settled
				fp := p.engine().(*fakeProc)
				if tt.unread > 0 {
					fp.setTypeahead(true)
					go func() {
						time.Sleep(tt.unread)
						fp.setTypeahead(false)
					}()
				}
				if err := p.Write(t.Context(), []byte("create table t(x);\n"), false); err != nil {
					t.Fatal(err)
				}
				start := time.Now()
				o := p.Await(t.Context(), start.Add(10*time.Second), Until{InputWait: true})
				if o.Reason != ReasonInputWait {
					t.Fatalf("outcome %+v, want an input wait", o)
				}
				if got := time.Since(start); got != tt.at {
					t.Errorf("answered %v after the write, want %v", got, tt.at)
				}
			})
		})
	}
}

// A program that polls its terminal (rlwrap, node's readline) and is slow
// to echo a write: the prompt line from before the write is no new wait
// (issue 32, rlwrap's 1 in 40). Under a terminal the quiet prompt needs
// output since the write, the echo at least, or with echo off the next
// prompt (a password typed behind ssh); in a pipe, where nothing echoes,
// a silent turn counts once the pipe is empty, as for a blocked reader.
func TestAwaitQuietPromptAfterWrite(t *testing.T) {
	tests := []struct {
		name   string
		tty    bool
		echo   bool
		unread time.Duration // how long the written line stays unread
		out    time.Duration // when the program prints, after the write; 0: never
		at     time.Duration // when Await answers, after the write
		prompt string
	}{
		{"terminal: the slow echo, then the answer and the prompt", true, true, 0, 200 * time.Millisecond, 351 * time.Millisecond, "calc> "},
		{"terminal, echo off: the next prompt", true, false, 0, 400 * time.Millisecond, 551 * time.Millisecond, "calc> "},
		{"pipe: a silent turn", false, false, 0, 0, 151 * time.Millisecond, "calc> "},
		{"pipe: not while the line is unread", false, false, 250 * time.Millisecond, 0, 311 * time.Millisecond, "calc> "},
		{"pipe: the prompt reprinted", false, false, 0, 100 * time.Millisecond, 251 * time.Millisecond, "calc> "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				k := &fakeProber{start: time.Now(), activity: prompt.Polling}
				p := bareProcess(k)
				p.TTY = tt.tty
				p.eng.Store(&engineRef{EngineProcess: newFakeProc(1000, pty.Options{TTY: tt.tty})})
				fp := p.engine().(*fakeProc)
				fp.echo = tt.echo
				p.emit("calc> ")
				time.Sleep(time.Second) // fake time: the prompt has settled
				var wg sync.WaitGroup   // joined before the checks, so that an early answer fails them
				if tt.unread > 0 {
					fp.setTypeahead(true)
					wg.Go(func() {
						time.Sleep(tt.unread)
						fp.setTypeahead(false)
					})
				}
				if err := p.Write(t.Context(), []byte("6 * 7\r"), false); err != nil {
					t.Fatal(err)
				}
				start := time.Now()
				if tt.out > 0 {
					wg.Go(func() {
						time.Sleep(tt.out) // fake time: the program is slow to print
						if tt.echo {
							p.emit("6 * 7\r\n")
						}
						p.emit("42\r\ncalc> ")
					})
				}
				o := p.Await(t.Context(), start.Add(10*time.Second), Until{InputWait: true})
				got := time.Since(start)
				wg.Wait()
				if o.Reason != ReasonInputWait || o.Input.Prompt != tt.prompt {
					t.Fatalf("outcome %+v, want an input wait at %q", o, tt.prompt)
				}
				if got != tt.at {
					t.Errorf("answered %v after the write, want %v", got, tt.at)
				}
			})
		})
	}
}

// A program that polls its terminal while its tree listens serves only
// once it has printed nothing for servingQuiet: node inspect's client
// polls its terminal while its debuggee listens, and prints "debug> "
// soon after the debuggee's banner; a dev server prints nothing more.
func TestAwaitServingNeedsItsQuiet(t *testing.T) {
	for _, prompts := range []bool{false, true} {
		t.Run(fmt.Sprintf("prompt follows=%v", prompts), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				k := &fakeProber{start: time.Now(), activity: prompt.Polling, ports: []int{9229}}
				p := bareProcess(k)
				p.emit("< Debugger attached.\n<\n")
				if prompts {
					go func() {
						time.Sleep(300 * time.Millisecond) // fake time: slower than the quiet period
						p.emit("debug> ")
					}()
				}
				o := p.Await(t.Context(), time.Now().Add(5*time.Second), Until{InputWait: true, Ready: true})
				switch {
				case prompts && (o.Reason != ReasonInputWait || o.Input.Prompt != "debug> "):
					t.Fatalf("%+v, want waiting at debug> ", o)
				case !prompts && o.Reason != ReasonReady:
					t.Fatalf("%+v, want ready", o)
				case !prompts && time.Since(k.start) < 500*time.Millisecond:
					t.Errorf("ready after %v, before servingQuiet", time.Since(k.start))
				}
			})
		})
	}
}

// A line editor that redraws its prompt before it echoes (rlwrap clears
// and rewrites its line) has not answered: output that leaves the screen
// as it was at the write waits for more, and the answer is the one that
// follows, not the old prompt.
func TestAwaitRedrawIsNoAnswer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		k := &fakeProber{start: time.Now(), activity: prompt.Polling}
		p := bareProcess(k)
		p.TTY = true
		p.eng.Store(&engineRef{EngineProcess: newFakeProc(1000, pty.Options{TTY: true})})
		p.out = newTerminalPipeline(80, 24, newSecretList(nil))
		p.emit("calc> ")
		time.Sleep(time.Second) // fake time: the prompt has settled
		if err := p.Write(t.Context(), []byte("6 * 7\r"), false); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		var wg sync.WaitGroup
		wg.Go(func() {
			time.Sleep(50 * time.Millisecond)
			p.emit("\r\r\x1b[K\r\x1b[?2004hcalc> ") // the redraw
			time.Sleep(350 * time.Millisecond)      // a loaded machine
			p.emit("6 * 7\r\n42\r\ncalc> ")
		})
		o := p.Await(t.Context(), start.Add(10*time.Second), Until{InputWait: true})
		got := time.Since(start)
		wg.Wait()
		if o.Reason != ReasonInputWait || got != 551*time.Millisecond {
			t.Fatalf("outcome %+v after %v, want an input wait 551ms after the write (the answer's prompt, settled)", o, got)
		}
	})
}
