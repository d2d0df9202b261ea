package session

import (
	"bytes"
	"context"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/yieldshell/yieldshell/internal/policy"
	"github.com/yieldshell/yieldshell/prompt"
	"github.com/yieldshell/yieldshell/screen"
)

// hintTail is how much of the log above the cursor a serving check reads
// for a shortcut hint.
const hintTail = 2 << 10

// describe completes what evalInput found with what the program asks (its
// prompt's grammar), and tells serving from waiting: a program that reads
// its terminal while its tree listens on a socket, or under a shortcut
// hint ("press h + enter to show help"), is ready, not waiting, unless its
// prompt is a question (a confirm, a menu) or a REPL's own prompt
// ("debug> ": node inspect's debuggee listens on its inspector port). pr
// is the kernel's probe the state rests on.
func (p *Process) describe(pr prompt.Probe, v inputView, st InputState) InputState {
	if st.Waiting && st.Signal == SignalMark {
		return st // an integrated shell at its prompt
	}
	// A wait on the input with a timer counts here: a server's event
	// loop has timers, and what is asked is whether it serves.
	reads := pr.Activity == prompt.Reading || pr.Activity == prompt.Polling || pr.Timed
	if !st.Waiting && (!reads || v.quiet < p.timing.quietPeriod) {
		return st
	}
	var g prompt.Grammar
	if st.Waiting {
		g = p.grammar(st)
		if asks(g.Kind) || g.Kind == prompt.KindLine && prompt.NamedPrompt(st.Prompt) {
			return withGrammar(st, g)
		}
	}
	if reads || st.Signal == SignalQuiet {
		if ports, ok := p.serving(); ok {
			if v.quiet < p.timing.servingQuiet {
				return InputState{} // too soon to tell from a REPL about to prompt
			}
			return InputState{Ready: true, Ports: ports}
		}
	}
	if st.Waiting {
		st = withGrammar(st, g)
	}
	return st
}

// asks reports whether a kind of prompt is a question even from a server.
func asks(k prompt.Kind) bool {
	switch k {
	case prompt.KindConfirm, prompt.KindChoice, prompt.KindPassword, prompt.KindContinuation:
		return true
	}
	return false
}

func withGrammar(st InputState, g prompt.Grammar) InputState {
	st.Kind, st.Grammar = g.Kind, g
	return st
}

// serving reports whether the program serves: its tree listens on TCP
// ports (which it returns), or it printed a shortcut hint above an empty
// prompt line.
func (p *Process) serving() ([]int, bool) {
	if p.in.prober != nil {
		if ports := p.in.prober.Listening(p.Pid); len(ports) > 0 {
			return ports, true
		}
	}
	p.mu.Lock()
	text := append([]byte(nil), p.log.ReadTail(hintTail, Stdout).Stdout...)
	text = p.out.pending(text)
	p.mu.Unlock()
	lines := strings.Split(string(text), "\n")
	return nil, prompt.ServingHint(lines[:len(lines)-1], lines[len(lines)-1])
}

// grammar reads what a waiting program asks: its prompt line, and in PTY
// mode the rendered screen, the terminal's mode and the foreground's
// program names. What it returns is redacted like the screen.
func (p *Process) grammar(st InputState) prompt.Grammar {
	c := prompt.Context{Kind: st.Kind, Line: st.Prompt}
	if p.TTY {
		p.mu.Lock()
		if p.out.view != nil {
			s := p.out.view.styled()
			c.Screen = &s
		}
		p.mu.Unlock()
		if _, canonical, err := p.modes(st.relay); err == nil {
			c.Raw = !canonical
		}
		if rl := st.relay; rl != nil && p.in.prober != nil {
			// The programs on the terminal the reader was seen on.
			c.Programs = p.in.prober.Programs(rl.Input)
		} else if pgrp, err := p.proc.ForegroundPgrp(); err == nil && p.in.prober != nil {
			c.Programs = p.in.prober.Programs(prompt.Input{Session: p.Pid, Pgrp: pgrp, Path: p.proc.InputPath()})
		}
	} else {
		p.mu.Lock()
		s := p.pipeScreen()
		p.mu.Unlock()
		c.Screen = &s
	}
	g := prompt.Classify(c)
	secrets := p.out.secrets.all()
	if len(secrets) > 0 {
		for _, l := range [][]string{g.Choices, g.Items} {
			for i := range l {
				l[i] = policy.Redact(secrets, l[i])
			}
		}
		g.Default = policy.Redact(secrets, g.Default)
	}
	return g
}

// Pipe mode's screen: wide enough that a menu's rows do not wrap, and tall
// enough for the rows above a prompt that a menu takes.
const (
	pipeCols = 240
	pipeRows = 40
)

// pipeScreen renders the tail of the log in pipe mode as a person running
// the command in a terminal would see it: stdout and stderr interleaved in
// the order they arrived (bash's select prints its menu and its prompt on
// stderr). Called with p.mu held.
func (p *Process) pipeScreen() screen.Styled {
	scr := screen.New(pipeCols, pipeRows)
	var b []byte
	for c := range p.log.Chunks(p.log.End() - hintTail) {
		b = append(b, c.Data...)
	}
	// A pipe's text has bare line feeds, which a terminal's output
	// processing turns into carriage return and line feed; a split
	// character at the start is dropped.
	b = bytes.ReplaceAll(bytes.TrimLeftFunc(b, func(r rune) bool { return r == utf8.RuneError }), []byte("\n"), []byte("\r\n"))
	_, _ = scr.Write(b)
	return scr.Styled()
}

// styled renders the screen with each character's look.
func (v *termView) styled() screen.Styled {
	v.catchUp()
	return v.scr.Styled()
}

// StopForInput ends a process that waits for input under exec's on_input
// "fail": like stop, but recorded as ended by its input, so its status is
// failed.
func (p *Process) StopForInput(ctx context.Context, grace time.Duration) (StopResult, error) {
	return p.Stop(ctx, syscall.SIGTERM, grace, EndedByInput)
}
