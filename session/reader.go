package session

import (
	"io"
	"runtime"
	"time"

	"github.com/yieldshell/yieldshell/policy"
	"github.com/yieldshell/yieldshell/prompt"
	"github.com/yieldshell/yieldshell/screen"
)

// readBatch is the most output a reader takes in one turn.
const readBatch = 4 << 10

// read is the one goroutine that owns stream s and its redactor: raw bytes
// go through the redactor and, in PTY mode, the terminal cleaner into the
// log, so no secret is ever stored.
func (p *Process) read(r io.Reader, s Stream, red *policy.Redactor) {
	defer p.streams.readers.Done()
	// One terminal read's worth: a small batch keeps each turn under p.mu
	// short, so tool calls wait behind little. Under a flood of 50 busy
	// terminals, 4 KiB gave ps a p99 of 38-45 ms against 48-50 ms for 8 KiB
	// and 54-60 ms for 16 KiB, at the same drain rate.
	buf := make([]byte, readBatch)
	var redacted, text []byte
	var sc scratch
	var scan prompt.Scanner
	var marks []prompt.Mark
	// Pipe-mode output reaches the log as written but for control strings
	// (see screen.Stripper); in PTY mode the cleaner takes everything.
	var strip *screen.Stripper
	var stripped []byte
	if !p.TTY {
		strip = new(screen.Stripper)
	}
	clean := func(b []byte, last bool) []byte {
		if strip == nil {
			return b
		}
		stripped = strip.Write(stripped[:0], b)
		if last {
			stripped = strip.Flush(stripped)
		}
		return stripped
	}
	for {
		n, err := r.Read(buf)
		if n > 0 {
			p.in.inFlight.Add(1)
			redacted = red.Write(redacted[:0], buf[:n])
			text, marks = scan.Write(text[:0], redacted, marks[:0])
			p.mu.Lock()
			prev := 0
			for _, m := range marks {
				p.out.append(p.log, s, clean(text[prev:m.Pos], false), &sc, false)
				p.in.mark(m, p.out.line)
				prev = m.Pos
			}
			p.out.append(p.log, s, clean(text[prev:], false), &sc, false)
			p.in.outputs++
			p.in.lastOutput = time.Now()
			p.in.inFlight.Add(-1)
			p.broadcast()
			p.mu.Unlock()
			// A busy terminal always has more to read: without yielding, a
			// reader would run until Go preempts it (10 ms), and with many
			// busy processes a tool call would wait behind all of them.
			runtime.Gosched()
		}
		if err != nil {
			// What the redactor and the mark scanner held back is output
			// now; a mark at the very end says nothing any more.
			redacted = red.Flush(redacted[:0])
			text, _ = scan.Write(text[:0], redacted, marks[:0])
			text = scan.Flush(text)
			p.mu.Lock()
			p.out.append(p.log, s, clean(text, true), &sc, true)
			p.streams.open--
			if p.streams.open == 0 {
				close(p.streams.eof)
			}
			p.releaseLocked()
			p.broadcast()
			p.mu.Unlock()
			return
		}
	}
}

// writeInitial feeds exec's stdin parameter without holding up exec: a
// child that does not read must not stall the answer. The write gives up
// when the process ends or is closed.
func (p *Process) writeInitial(data string, closeAfter bool) {
	defer p.streams.readers.Done()
	var err error
	if data != "" {
		err = p.proc.WriteInput(p.life, []byte(data))
	}
	if err == nil && closeAfter {
		err = p.proc.CloseInput()
	}
	p.mu.Lock()
	if err != nil && p.life.Err() == nil {
		p.in.stdinErr = err
	}
	p.in.feeding = false
	p.broadcast()
	p.mu.Unlock()
}
