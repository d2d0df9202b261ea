package session

import (
	"context"
	"fmt"
	"time"

	"github.com/yieldshell/yieldshell/internal/policy"
	"github.com/yieldshell/yieldshell/prompt"
	"github.com/yieldshell/yieldshell/pty"
)

// observeLocked is what deciding the input state needs of p now, taken
// under p.mu; the line only when the kernel is going to be asked (after
// probeAfter of quiet), since only then is it looked at.
func (p *Process) observeLocked(now time.Time, probeAfter time.Duration) prompt.Observation {
	// Quiet since the newest output or write, whichever came last: what
	// was on the screen before a write says nothing about the answer.
	since := p.in.lastOutput
	if p.in.wrote.At.After(since) {
		since = p.in.wrote.At
	}
	ms := &p.in.marks
	o := prompt.Observation{
		Over:        p.lc.over() || p.in.feeding,
		TTY:         p.TTY,
		Integrated:  p.in.integrated,
		ProbeAfter:  probeAfter,
		Quiet:       now.Sub(since),
		Outputs:     p.in.outputs,
		AtPrompt:    ms.atPrompt,
		Running:     ms.running,
		Prompts:     ms.prompts,
		ShellPrompt: ms.prompt,
		Wrote:       p.in.wrote.Write,
	}
	if !o.Over && o.Quiet >= probeAfter {
		o.Line, o.AtEnd = p.out.line()
	}
	if secrets := p.out.secrets.all(); len(secrets) > 0 {
		// The cursor's line comes from the cleaner, which sees the output
		// before its second redaction: a secret interrupted by escape
		// codes is whole only there.
		o.Line = policy.Redact(secrets, o.Line)
		o.ShellPrompt = policy.Redact(secrets, o.ShellPrompt)
	}
	return o
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

// evalInputView is evalInput, with the observation it decided from.
func (p *Process) evalInputView(probeAfter time.Duration) (InputState, prompt.Observation) {
	p.mu.Lock()
	o := p.observeLocked(time.Now(), probeAfter)
	p.mu.Unlock()
	return p.inputFrom(o), o
}

// inputFrom decides from o, an observation taken under p.mu: prompt's
// detector decides, asking p's evidence what it needs. What the grammar
// read off the screen is redacted like the screen.
func (p *Process) inputFrom(o prompt.Observation) InputState {
	st := p.in.detector.Decide(o, evidence{p, o.Outputs})
	if secrets := p.out.secrets.all(); len(secrets) > 0 {
		g := &st.Grammar
		for _, l := range [][]string{g.Choices, g.Items} {
			for i := range l {
				l[i] = policy.Redact(secrets, l[i])
			}
		}
		g.Default = policy.Redact(secrets, g.Default)
	}
	return st
}

// beforeWrite records the state a write is about to change, and returns
// a function that records its return.
func (p *Process) beforeWrite() (written func()) {
	p.mu.Lock()
	w := wrote{Write: prompt.Write{At: time.Now(), Outputs: p.in.outputs, Prompts: p.in.marks.prompts}, exits: p.in.marks.exits}
	w.Screen, w.ScreenKnown = p.out.screenSum()
	p.mu.Unlock()
	if w.Reader = p.in.detector.Reader(); w.Reader != (prompt.Task{}) {
		w.Switches, _ = p.in.prober.Switches(w.Reader)
	}
	p.mu.Lock()
	p.in.wrote = w
	p.mu.Unlock()
	return func() {
		p.mu.Lock()
		if p.in.wrote.At.Equal(w.At) {
			p.in.wrote.Written = true
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
		return p.engine().CloseInput()
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
		return p.engine().WriteCommand(ctx, input)
	}
	return p.engine().WriteInput(ctx, input)
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
				if err := p.engine().Signal(sig); err != nil {
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
