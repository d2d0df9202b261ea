package session

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/yieldshell/yieldshell/prompt"
)

// A person in the loop (issue 33): the agent asks a person, through a
// one-time page (package human), to type a secret into a program or to
// take its terminal for a while. The Process keeps what that needs: whether
// a page is open for it, whether a person holds its terminal (the agent's
// writes are refused meanwhile), how the page ended until a wait reports
// it, and the secrets a person typed, redacted from its output from then
// on. [Process.SecretSink] and [Process.Terminal] are what the page types
// into and shows; they satisfy human.SecretSink and human.Terminal.

// What a wait answers once a person is done with a page.
const (
	ReasonHumanDone     Reason = "human_done"     // submitted a secret, or handed the terminal back
	ReasonHumanDeclined Reason = "human_declined" // declined
	ReasonHumanLeft     Reason = "human_left"     // the page expired, or they closed it
)

// ErrHeld refuses the agent's input while a person holds the terminal.
var ErrHeld = errors.New("a person holds this terminal (it was handed to them with ask_human): nothing was written. " +
	"Wait on the process: wait answers with yield_reason human_done once they hand it back")

// ErrHeldSignal refuses the agent's stop and restart (any signal) while a
// person holds the terminal: the signal would reach the program they use.
var ErrHeldSignal = errors.New("a person holds this terminal (it was handed to them with ask_human): no signal was sent and nothing was stopped or restarted. " +
	"Wait on the process: wait answers with yield_reason human_done once they hand it back")

// ErrAsking refuses a second page for a process that has one open.
var ErrAsking = errors.New("a person already has a page open for this process (ask_human); wait on the process for their answer")

// humanSecretName names a person's secret in redacted output.
const humanSecretName = "ask_human"

// humanState is a Process's part in asking a person. Guarded by the
// Process's lock.
type humanState struct {
	asking  bool          // a page is open for the process
	holds   int           // people holding the terminal
	pending Reason        // an outcome no wait has reported yet
	note    chan struct{} // closed and replaced when any of the above changes
}

// noteLocked wakes AwaitPerson. Called with p.mu held.
func (p *Process) noteLocked() {
	if p.human.note != nil {
		close(p.human.note)
	}
	p.human.note = make(chan struct{})
}

// humanNote returns the channel closed at the next change of humanState.
func (p *Process) humanNote() <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.human.note == nil {
		p.human.note = make(chan struct{})
	}
	return p.human.note
}

// BeginAsk records that a page is open for the process: waits no longer
// stop at its input waits, which are the person's to answer. It returns
// ErrAsking if one is open already, or why the process takes no input.
func (p *Process) BeginAsk() error {
	p.mu.Lock()
	over, asking := p.lc.over(), p.human.asking
	if !over && !asking {
		p.human.asking, p.human.pending = true, ""
		p.noteLocked()
	}
	p.mu.Unlock()
	switch {
	case over:
		return p.notRunning()
	case asking:
		return ErrAsking
	}
	return nil
}

// EndAsk records that the page ended; with post, the next wait (or the one
// in progress) reports outcome, once.
func (p *Process) EndAsk(outcome Reason, post bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.human.asking = false
	if post {
		p.human.pending = outcome
	}
	p.noteLocked()
}

// Hold marks the terminal as a person's: the agent's writes are refused
// with ErrHeld until release is called.
func (p *Process) Hold() (release func()) {
	p.mu.Lock()
	p.human.holds++
	p.noteLocked()
	p.mu.Unlock()
	var once atomic.Bool
	return func() {
		if once.Swap(true) {
			return
		}
		p.mu.Lock()
		p.human.holds--
		p.noteLocked()
		p.mu.Unlock()
	}
}

// Held reports whether a person holds the terminal.
func (p *Process) Held() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.human.holds > 0
}

// takePerson returns a posted outcome and forgets it.
func (p *Process) takePerson() (Reason, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	r := p.human.pending
	p.human.pending = ""
	return r, r != ""
}

func (p *Process) asking() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.human.asking
}

// AwaitPerson is Await for the wait tool: while a page is open for the
// process its input waits do not end the wait (they are the person's),
// and a person's outcome posted by EndAsk ends it, reported once, as the
// Outcome's Reason (ReasonHumanDone, ...). Then it waits, within the same
// deadline, for the program's reply (input wait, ready or end), whose
// input state the Outcome carries.
func (p *Process) AwaitPerson(ctx context.Context, deadline time.Time, u Until) Outcome {
	for {
		note := p.humanNote()
		if r, ok := p.takePerson(); ok {
			reply := p.Await(ctx, deadline, Until{InputWait: true, Ready: true})
			return Outcome{Reason: r, Input: reply.Input}
		}
		uu := u
		if p.asking() {
			uu.InputWait, uu.Ready = false, false
		}
		o := p.awaitOrNote(ctx, deadline, uu, note)
		if o.Reason == ReasonCancelled && ctx.Err() == nil && time.Now().Before(deadline) {
			continue // the note: look again
		}
		if o.Reason == ReasonExited && (p.asking() || closed(note)) && p.awaitNote(ctx, deadline, note) {
			// The program ended while a page was open: the page's end
			// follows at once (a person who held the terminal is done);
			// report that rather than the exit alone.
			continue
		}
		return o
	}
}

func closed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// awaitNote waits for note until ctx or deadline: false if they came
// first.
func (p *Process) awaitNote(ctx context.Context, deadline time.Time, note <-chan struct{}) bool {
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	select {
	case <-note:
		return true
	case <-ctx.Done():
	case <-t.C:
	}
	return false
}

// awaitOrNote is Await that also ends, cancelled, when note is closed.
func (p *Process) awaitOrNote(ctx context.Context, deadline time.Time, u Until, note <-chan struct{}) Outcome {
	nctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan struct{})
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		select {
		case <-note:
			cancel()
		case <-done:
		}
	}()
	o := p.Await(nctx, deadline, u)
	close(done)
	<-watched
	return o
}

// AwaitPassword waits, until deadline, for the program to wait for a
// password: the terminal's echo is off while it reads (the kernel's
// evidence, as write's wait_for_password uses). ok is false, with the
// outcome that came instead, when it does not.
func (p *Process) AwaitPassword(ctx context.Context, deadline time.Time) (o Outcome, ok bool) {
	o = p.Await(ctx, deadline, Until{InputWait: true})
	return o, o.Reason == ReasonInputWait && o.Input.Kind == prompt.KindPassword
}

// personWrite writes what a person typed: as Write, but not refused while
// a person holds the terminal.
func (p *Process) personWrite(ctx context.Context, b []byte) error {
	p.mu.Lock()
	over := p.lc.over()
	p.mu.Unlock()
	if over {
		return p.notRunning()
	}
	written := p.beforeWrite()
	if err := p.writeInput(ctx, b); err != nil {
		return err
	}
	written()
	return nil
}

// SecretSink is what a secret page types into (human.SecretSink): into
// the terminal p's reader reads now, and only while that process reads it.
func (p *Process) SecretSink() PersonSecret {
	r, _ := p.TerminalReader()
	return PersonSecret{p: p, reader: r}
}

// PersonSecret types a person's secret into a program waiting for a
// password.
type PersonSecret struct {
	p      *Process
	reader Reader
}

// Reader is the process the page names: the only one Submit types to.
func (s PersonSecret) Reader() Reader { return s.reader }

// errNoPassword is the person's answer when the program no longer asks.
var errNoPassword = errors.New("the program no longer waits for a password, so nothing was typed")

// errOtherReader is the person's answer when another process than the
// page named reads the terminal now.
var errOtherReader = errors.New("another process than the one this page named reads the terminal now, so nothing was typed")

// Submit types secret and Enter if, and only if, the program waits for a
// password now: it reads its terminal with echo off, as the kernel says.
// From then on the secret is redacted from the process's output, as an
// environment secret is. It keeps no copy but that redaction's.
func (s PersonSecret) Submit(ctx context.Context, secret []byte) error {
	p := s.p
	if !p.TTY {
		return errors.New("the program reads a pipe, not a terminal, so nothing was typed")
	}
	st := p.InputState()
	echo, canonical, err := p.engine().Modes()
	if rl := st.Relay; rl != nil && err == nil {
		echo, canonical, err = rl.Through(echo, canonical) // typed across the relay's terminals too
	}
	if !st.Waiting || st.Kind != prompt.KindPassword || err != nil || echo || !canonical {
		return errNoPassword
	}
	if now, _ := p.TerminalReader(); now.Pid != s.reader.Pid {
		return errOtherReader
	}
	p.learnSecret(secret)
	b := make([]byte, 0, len(secret)+1)
	b = append(append(b, secret...), '\r')
	defer clear(b)
	return p.personWrite(ctx, b)
}

// learnSecret redacts secret from the output from now on, as a secret
// typed with wait_for_password is (addSecrets).
func (p *Process) learnSecret(secret []byte) {
	p.addSecrets(humanSecretName, string(secret))
	if p.sharePersonSecret != nil {
		p.sharePersonSecret(string(secret))
	}
}

// Terminal is what a handover page shows and types into (human.Terminal).
func (p *Process) Terminal() PersonTerminal { return PersonTerminal{p} }

// PersonTerminal is the program's terminal as a person on a page has it.
type PersonTerminal struct{ p *Process }

// personTail is how much of a pipe-mode process's output a page shows.
const personTail = 4096

// Screen returns the rendered screen, redacted (in pipe mode the newest
// output), and a channel closed at the process's next change.
func (t PersonTerminal) Screen() (string, <-chan struct{}) {
	p := t.p
	p.mu.Lock()
	defer p.mu.Unlock()
	if s := p.out.screen(true); s != nil {
		lines := s.Lines
		for len(lines) > 0 && lines[len(lines)-1] == "" {
			lines = lines[:len(lines)-1]
		}
		return strings.Join(lines, "\n"), p.changedLocked()
	}
	p.out.flush(p.log)
	r := p.log.ReadTail(personTail, Both)
	return string(r.Stdout) + string(r.Stderr), p.changedLocked()
}

// ANSI returns the screen as a terminal redraws it (colours, cursor),
// redacted, with its size, for a browser terminal; in pipe mode the
// newest output. changed is closed at the process's next change.
func (t PersonTerminal) ANSI() (ansi string, cols, rows int, changed <-chan struct{}) {
	p := t.p
	p.mu.Lock()
	s := p.out.styledScreen()
	ch := p.changedLocked()
	p.mu.Unlock()
	if s == nil {
		text, ch := t.Screen()
		return "\x1b[H\x1b[2J" + strings.ReplaceAll(text, "\n", "\r\n"), 0, 0, ch
	}
	return s.ANSI(), s.Cols, s.Rows, ch
}

// Resize sets the terminal's size to a person's window; an error in pipe
// mode or for a size out of bounds.
func (t PersonTerminal) Resize(cols, rows int) error {
	if cols < 10 || rows < 3 || cols > 500 || rows > 200 {
		return fmt.Errorf("resizing the terminal: %dx%d is out of bounds (10x3 to 500x200)", cols, rows)
	}
	return t.p.Resize(uint16(cols), uint16(rows))
}

// Keys writes a person's keystrokes to the program.
func (t PersonTerminal) Keys(ctx context.Context, keys []byte) error {
	return t.p.personWrite(ctx, keys)
}
