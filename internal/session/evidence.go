package session

import (
	"bytes"
	"unicode/utf8"

	"github.com/yieldshell/yieldshell/prompt"
	"github.com/yieldshell/yieldshell/screen"
)

// evidence is what prompt's detector asks of a process beyond its
// observation, when it needs it: the kernel (through the Manager's
// prober), the terminal, and the output. outputs is the observation's
// count of output reads.
type evidence struct {
	p       *Process
	outputs uint64
}

var _ prompt.Evidence = evidence{}

func (e evidence) Probe(shell bool) prompt.Probe {
	p := e.p
	in := prompt.Input{Session: p.Pid, Path: p.engine().InputPath(), Tag: tagKey + "=" + p.tag}
	if in.Path == "" {
		return prompt.Probe{}
	}
	if shell {
		in = prompt.Input{Session: p.Pid, Only: p.Pid, Path: in.Path}
	} else if p.TTY {
		pgrp, err := p.engine().ForegroundPgrp()
		if err != nil {
			return prompt.Probe{}
		}
		in.Pgrp = pgrp
	}
	return p.in.prober.Inspect(in)
}

func (e evidence) Switches(t prompt.Task) (uint64, bool) { return e.p.in.prober.Switches(t) }

func (e evidence) Listening() []int {
	if e.p.in.prober == nil {
		return nil
	}
	return e.p.in.prober.Listening(e.p.Pid)
}

func (e evidence) Programs(rl *prompt.Relay) []string {
	p := e.p
	if p.in.prober == nil {
		return nil
	}
	if rl != nil {
		return p.in.prober.Programs(rl.Input)
	}
	pgrp, err := p.engine().ForegroundPgrp()
	if err != nil {
		return nil
	}
	return p.in.prober.Programs(prompt.Input{Session: p.Pid, Pgrp: pgrp, Path: p.engine().InputPath()})
}

func (e evidence) Pending() bool   { return e.p.engine().Pending() }
func (e evidence) Typeahead() bool { return e.p.engine().Typeahead() }

func (e evidence) Modes() (echo, canonical bool, err error) { return e.p.engine().Modes() }

// Replying: a reply to a query is on its way (deliverReply), or written
// and not read yet.
func (e evidence) Replying() bool {
	e.p.mu.Lock()
	q := e.p.out.replies
	e.p.mu.Unlock()
	return q != nil && q.outstanding(e.p.engine().Typeahead)
}

// Unchanged reports whether every byte the program wrote before the
// kernel was asked is in the log the observation was taken from: none
// waits in the terminal, none is held by a reader between its read and
// the log, and none was appended since. Checked after asking the kernel,
// this leaves no window in which a program is seen waiting while its
// prompt is not yet visible.
func (e evidence) Unchanged() bool {
	p := e.p
	if p.engine().Pending() {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.in.inFlight.Load() == 0 && p.in.outputs == e.outputs
}

func (e evidence) ScreenSum() (uint64, bool) {
	e.p.mu.Lock()
	defer e.p.mu.Unlock()
	return e.p.out.screenSum()
}

// Screen is the rendered terminal, each character with its look; in pipe
// mode, the tail of the log as a terminal would show it (pipeScreen).
func (e evidence) Screen() *screen.Styled {
	p := e.p
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.TTY {
		s := p.pipeScreen()
		return &s
	}
	if p.out.view == nil {
		return nil
	}
	s := p.out.view.styled()
	return &s
}

// CursorRow is the text left of the cursor on its row of the rendered
// screen (redacted), while a full-screen program runs.
func (e evidence) CursorRow() string {
	e.p.mu.Lock()
	defer e.p.mu.Unlock()
	s := e.p.out.screen(false) // redacted; nil unless full-screen
	if s == nil || s.CursorY < 0 || s.CursorY >= len(s.Lines) {
		return ""
	}
	row := []rune(s.Lines[s.CursorY])
	return string(row[:min(max(s.CursorX, 0), len(row))])
}

// Tail is what a read would show of the last n bytes: the log, then what
// is on the screen but not in the log yet. It ends with the cursor's own
// line.
func (e evidence) Tail(n int) string {
	e.p.mu.Lock()
	defer e.p.mu.Unlock()
	text := append([]byte(nil), e.p.log.ReadTail(n, Stdout).Stdout...)
	return string(e.p.out.pending(text))
}

// Pipe mode's screen: wide enough that a menu's rows do not wrap, and tall
// enough for the rows above a prompt that a menu takes.
const (
	pipeCols = 240
	pipeRows = 40
	pipeTail = 2 << 10 // bytes of the log it renders
)

// pipeScreen renders the tail of the log in pipe mode as a person running
// the command in a terminal would see it: stdout and stderr interleaved in
// the order they arrived (bash's select prints its menu and its prompt on
// stderr). Called with p.mu held.
func (p *Process) pipeScreen() screen.Styled {
	scr := screen.New(pipeCols, pipeRows)
	var b []byte
	for c := range p.log.Chunks(p.log.End() - pipeTail) {
		b = append(b, c.Data...)
	}
	// A pipe's text has bare line feeds, which a terminal's output
	// processing turns into carriage return and line feed; a split
	// character at the start is dropped.
	b = bytes.ReplaceAll(bytes.TrimLeftFunc(b, func(r rune) bool { return r == utf8.RuneError }), []byte("\n"), []byte("\r\n"))
	_, _ = scr.Write(b)
	return scr.Styled()
}
