package session

import (
	"bytes"
	"io"
	"runtime"
	"time"

	"github.com/yieldshell/yieldshell/internal/outlog"
	"github.com/yieldshell/yieldshell/internal/policy"
	"github.com/yieldshell/yieldshell/prompt"
	"github.com/yieldshell/yieldshell/screen"
)

// readBatch is the most output a reader takes from the stream at once, and
// turnBytes the most it passes on in one turn under the Process's lock:
// one large read keeps a busy terminal's reader from paying a system call
// and a wake-up of every waiter per 4 KiB, while short turns, each followed
// by a yield, keep tool calls from waiting behind many busy terminals.
const (
	readBatch = 32 << 10
	turnBytes = 4 << 10
)

// streamReader is what one output stream's reader owns: its redactor, its
// mark scanner, in pipe mode the stripper of control strings, and buffers
// reused from read to read so that a busy reader allocates nothing.
type streamReader struct {
	s     Stream
	red   *policy.Redactor
	scan  prompt.Scanner
	strip *screen.Stripper // pipe mode only; the cleaner takes everything in PTY mode

	redacted, text, stripped []byte
	marks                    []prompt.Mark
	// tty: in PTY mode, a turn that is plain text (outlog.PlainText) in a
	// stream in text goes to the terminal cleaner whole (direct), which
	// reads its marks itself (Process.terminalMark): the scanner does not
	// look at it. held is what the scanner held back before such a turn.
	tty, direct, eof bool
	held             []byte
	sc               scratch
	// judge tells the stream's binary output from its text (see
	// appendChunk); bin is a binary piece's bytes as they go to the log.
	judge outlog.Judge
	bin   []byte
	// fg is the terminal's foreground process group when the newest
	// output was read: who asked the queries in it (0: not known).
	fg int
	// secrets is the process's list red follows, gen the generation red
	// was built from: a secret typed into the process (AddSecret) is
	// redacted from the next turn on.
	secrets *secretList
	gen     uint64
}

func newStreamReader(s Stream, tty bool, secrets *secretList) *streamReader {
	list, gen := secrets.get()
	sr := &streamReader{s: s, tty: tty && s == Stdout, red: policy.NewRedactor(list), secrets: secrets, gen: gen}
	if !tty {
		sr.strip = new(screen.Stripper)
	}
	return sr
}

// take redacts b and splits the shell-integration marks out of it; in PTY
// mode a turn of plain text keeps them, for the terminal cleaner to read
// (direct).
func (sr *streamReader) take(b []byte) {
	if sr.secrets != nil && sr.secrets.gen.Load() != sr.gen {
		var list []policy.Secret
		list, sr.gen = sr.secrets.get()
		sr.red.Reset(list)
	}
	sr.redacted = sr.red.Write(sr.redacted[:0], b)
	in := sr.redacted
	if sr.tty {
		// What the scanner held back (the start of a mark that the last
		// turn ended in) comes first; from an empty scanner the same bytes
		// come to the same end.
		if sr.held = sr.scan.Flush(sr.held[:0]); len(sr.held) > 0 {
			sr.held = append(sr.held, in...)
			in = sr.held
		}
		if sr.direct = !sr.judge.InBinary() && outlog.PlainText(in); sr.direct {
			sr.text, sr.marks = in, sr.marks[:0]
			return
		}
	}
	sr.text, sr.marks = sr.scan.Write(sr.text[:0], in, sr.marks[:0])
}

// flush takes what the redactor and the mark scanner held back: it is
// output now, and a mark at the very end says nothing any more.
func (sr *streamReader) flush() {
	sr.direct, sr.eof = false, true
	sr.redacted = sr.red.Flush(sr.redacted[:0])
	sr.text, _ = sr.scan.Write(sr.text[:0], sr.redacted, sr.marks[:0])
	sr.text = sr.scan.Flush(sr.text)
	sr.marks = sr.marks[:0]
}

// clean strips control strings from pipe-mode output; last ends the
// stream.
func (sr *streamReader) clean(b []byte, last bool) []byte {
	if sr.strip == nil {
		return b
	}
	sr.stripped = sr.strip.Write(sr.stripped[:0], b)
	if last {
		sr.stripped = sr.strip.Flush(sr.stripped)
	}
	return sr.stripped
}

// stripText is pipe mode's way through the binary judgement for a chunk
// of a stream in text, the usual case: b through the Stripper, and ok, if
// b is text (outlog.IsBinary). The Stripper counts the bytes that are not
// UTF-8 as it passes them, so only the search for a NUL is a pass of its
// own; a chunk with too many leaves the Stripper as it was, for the
// judge to cut (ok false).
func (sr *streamReader) stripText(b []byte, last bool) (_ []byte, ok bool) {
	if bytes.IndexByte(b, 0) >= 0 {
		return nil, false
	}
	saved, invalid := *sr.strip, sr.strip.Invalid()
	text := sr.clean(b, last)
	if outlog.MostlyInvalid(sr.strip.Invalid()-invalid, len(b)) {
		*sr.strip = saved
		return nil, false
	}
	return text, true
}

// read is the one goroutine that owns a stream: raw bytes go through the
// stream's redactor and, in PTY mode, the terminal cleaner into the log,
// so no secret is ever stored.
func (p *Process) read(r io.Reader, sr *streamReader) {
	defer p.streams.readers.Done()
	if sr.tty {
		p.mu.Lock()
		p.out.cleaner.OnOSC(func(payload []byte) { p.terminalMark(sr, payload) })
		p.mu.Unlock()
	}
	buf := make([]byte, readBatch)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			if p.TTY {
				// As close to the read as can be: a program that queries
				// and exits may be gone from the foreground soon after.
				sr.fg, _ = p.engine().ForegroundPgrp()
			}
			p.pass(sr, buf[:n])
		}
		if err != nil {
			sr.flush()
			p.mu.Lock()
			p.appendLocked(sr, true)
			p.streams.open--
			if p.streams.open == 0 {
				p.w.wake()
			}
			late := p.lc.ended() && p.streams.open == 0
			closeEngine := p.releaseLocked()
			p.broadcast()
			p.mu.Unlock()
			closeEngine()
			if late && p.lateOutput != nil {
				p.lateOutput()
			}
			return
		}
	}
}

// pass hands one read's batch to the log in turns of at most turnBytes,
// yielding after each, and counts the batch as output once all of it is
// in the log: until then it is in flight, so no one judges the process
// quiet while it holds output not yet logged.
func (p *Process) pass(sr *streamReader, batch []byte) {
	p.in.inFlight.Add(1)
	for len(batch) > 0 {
		turn := batch[:min(len(batch), turnBytes)]
		batch = batch[len(turn):]
		sr.take(turn)
		p.mu.Lock()
		p.appendLocked(sr, false)
		if len(batch) == 0 {
			p.in.outputs++
			p.in.lastOutput = time.Now()
			p.in.inFlight.Add(-1)
			p.broadcast() // one wake-up for the whole batch
		}
		p.mu.Unlock()
		// A busy terminal always has more to read: without yielding, a
		// reader would run until Go preempts it (10 ms), and with many busy
		// processes a tool call would wait behind all of them.
		runtime.Gosched()
	}
}

// appendLocked adds what sr took to the log, applying each mark where it
// was; last ends the stream.
func (p *Process) appendLocked(sr *streamReader, last bool) {
	prev := 0
	for _, m := range sr.marks {
		p.appendChunk(sr, sr.text[prev:m.Pos], false)
		p.applyMark(sr, m)
		prev = m.Pos
	}
	p.appendChunk(sr, sr.text[prev:], last)
}

// applyMark follows a shell-integration mark where it stood in sr's
// output.
func (p *Process) applyMark(sr *streamReader, m prompt.Mark) {
	p.in.mark(m, p.out.line)
	if m.Kind == 'A' || m.Kind == 'D' {
		// The shell speaks again: a command's binary output has ended,
		// and its prompt is text even without a line end.
		sr.judge = outlog.Judge{}
	}
}

// terminalMark is the terminal cleaner's OnOSC in PTY mode: a mark in a
// direct turn, read by the cleaner's own tokenizer where it stands, is
// followed as appendLocked follows the scanner's. The replies to the
// queries before it go out with the origin they had; those after it with
// the one it leaves. Called under p.mu, inside the cleaner's Write.
func (p *Process) terminalMark(sr *streamReader, payload []byte) {
	m, ok := parseMark(payload)
	if !ok || sr.eof {
		return
	}
	sc := &sr.sc
	sc.replies = p.out.cleaner.TakeReplies(sc.replies[:0])
	p.out.replies.push(sc.replies, sc.from)
	p.applyMark(sr, m)
	sc.from = p.replyOrigin(sr)
}

// maxMarkPayload is the longest mark prompt.Scanner takes: 4096 bytes
// with ESC ] and the terminator.
const maxMarkPayload = 4094

// parseMark reads an OSC payload that is a shell-integration mark,
// "133;<kind>[;<args>]" or "633;...", as prompt.Scanner does.
func parseMark(payload []byte) (prompt.Mark, bool) {
	var m prompt.Mark
	switch {
	case len(payload) > maxMarkPayload:
		return m, false
	case bytes.HasPrefix(payload, []byte("133;")):
		m.Code = 133
	case bytes.HasPrefix(payload, []byte("633;")):
		m.Code = 633
	default:
		return m, false
	}
	body := payload[4:]
	if len(body) > 0 {
		m.Kind = body[0]
	}
	if len(body) > 2 && body[1] == ';' {
		m.Args = string(body[2:])
	}
	return m, true
}

// replyOrigin is who asks the queries in sr's output from here on.
func (p *Process) replyOrigin(sr *streamReader) replyOrigin {
	return replyOrigin{pgrp: sr.fg, returns: p.in.marks.returns, idle: p.in.marks.idle()}
}

// appendChunk adds one chunk of what sr took (between two marks) to the
// log, piece by piece as sr's judge cuts it (outlog.Judge): text through
// the escape filter (the Stripper in pipe mode, the terminal cleaner in
// PTY mode), binary output as it is (issue 34 item 3). Binary output
// bypasses the filter so that it is stored losslessly; it is never shown
// as text, so the filter's reason (no program's escape sequence reaches an
// answer as text) still holds.
//
// The judge sees every chunk, the fast paths' too (Seen): a chunk too
// short to tell is judged with the text before it, so output that is
// binary only across many short reads is stored as binary. This is the
// one judgement of binary output; answers follow the log's parts.
//
// "As it is" is after the reader's redaction (a secret is never stored)
// and without shell-integration marks (the reader takes them out before
// this); in PTY mode it is what the terminal gave us, after its output
// processing (onlcr turns each \n into \r\n unless the program set the
// terminal raw).
func (p *Process) appendChunk(sr *streamReader, b []byte, last bool) {
	sr.sc.from = p.replyOrigin(sr)
	if sr.direct {
		sr.judge.Seen(b)
		p.out.append(p.log, sr.s, b, &sr.sc, last)
		return
	}
	if sr.strip != nil && !sr.judge.InBinary() && len(b) > 0 && !sr.judge.Tips(b) {
		if text, ok := sr.stripText(b, last); ok {
			sr.judge.Seen(b)
			p.out.append(p.log, sr.s, text, &sr.sc, last)
			return
		}
	}
	for first := true; first || len(b) > 0; first = false {
		n, bin := 0, false
		if len(b) > 0 {
			n, bin = sr.judge.Cut(b)
		}
		piece := b[:n]
		b = b[n:]
		end := last && len(b) == 0
		if !bin {
			p.out.append(p.log, sr.s, sr.clean(piece, end), &sr.sc, end)
			continue
		}
		sr.bin = sr.bin[:0]
		if sr.strip != nil {
			// What the stripper held back (an ESC, a character's first
			// bytes) began this output.
			sr.bin = sr.strip.TakeHeld(sr.bin)
		}
		sr.bin = append(sr.bin, piece...)
		p.out.appendBinary(p.log, sr.s, sr.bin, &sr.sc, end)
	}
}

// writeInitial feeds exec's stdin parameter without holding up exec: a
// child that does not read must not stall the answer. The write gives up
// when the process ends or is closed.
func (p *Process) writeInitial(data string, closeAfter bool) {
	defer p.streams.readers.Done()
	e := p.eng.Load() // an ended one's has no life: nothing is written
	var err error
	if data != "" && e.life != nil {
		err = e.WriteInput(e.life, []byte(data))
	}
	if err == nil && closeAfter && e.life != nil {
		err = e.CloseInput()
	}
	p.mu.Lock()
	if err != nil && e.life.Err() == nil {
		p.in.stdinErr = err
	}
	p.in.feeding = false
	p.broadcast()
	p.mu.Unlock()
}
