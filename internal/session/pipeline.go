package session

import (
	"bytes"
	"hash/fnv"
	"regexp"
	"strconv"

	"github.com/yieldshell/yieldshell/internal/outlog"
	"github.com/yieldshell/yieldshell/internal/policy"
	"github.com/yieldshell/yieldshell/screen"
)

// pipeline is what turns a process's redacted, mark-free output into its
// log: in PTY mode the terminal cleaner, a second redaction of the clean
// text, and the lazily rendered screen; in pipe mode the last unfinished
// line. The readers' own redactors and mark scanners come before it; in
// PTY mode a turn of plain text skips the scanner, and the cleaner's
// tokenizer hands its marks to the reader (screen.Cleaner.OnOSC), so each
// byte meets one escape parser on its way to the log. The Process guards
// it with its mutex.
//
// In PTY mode the cleaner also answers the program's queries to its
// terminal; the replies go to the reply queue, and from there to the
// program's input, never into the log or the screen.
type pipeline struct {
	view *termView // PTY mode only (and kept for the process's record)
	// The cleaner and the reply queue are PTY mode's only while the
	// output may go on: once it is complete they are released
	// (releaseEnded), and dropped keeps their count of dropped replies.
	cleaner *screen.Cleaner
	replies *replyQueue
	dropped int
	// In PTY mode secrets are redacted again after cleaning: a secret the
	// program interrupted with escape codes or redraws is whole only then.
	redactor *policy.Redactor
	secrets  *secretList // also in pipe mode: the process's secrets
	lastLine []byte      // pipe mode: the last unterminated line
	urls     urlSet      // the URLs printed so far, looked for when asked
}

// newTerminalPipeline returns the PTY-mode pipeline of a cols×rows terminal.
func newTerminalPipeline(cols, rows int, secrets *secretList) pipeline {
	return pipeline{
		cleaner:  screen.NewTerminal(cols, rows),
		view:     newTermView(cols, rows),
		replies:  newReplyQueue(),
		secrets:  secrets,
		redactor: policy.NewRedactor(secrets.all()),
	}
}

// scratch holds a reader's buffers for the PTY-mode steps after redaction,
// reused from read to read so that a busy reader allocates nothing.
type scratch struct {
	clean, redacted, replies []byte
	from                     replyOrigin // who asked the queries in the output appended
}

// append adds redacted output of stream s to l, through the cleaner in PTY
// mode. last marks the end of the stream.
func (o *pipeline) append(l *outlog.Log, s Stream, b []byte, sc *scratch, last bool) {
	if o.cleaner == nil {
		l.Append(s, b)
		o.trackLine(b)
		return
	}
	o.view.add(b)
	sc.clean = o.cleaner.Write(sc.clean[:0], b)
	sc.replies = o.cleaner.TakeReplies(sc.replies[:0])
	o.replies.push(sc.replies, sc.from)
	if last {
		sc.clean = o.cleaner.Close(sc.clean)
	}
	sc.redacted = o.redactor.Write(sc.redacted[:0], sc.clean)
	if last {
		sc.redacted = o.redactor.Flush(sc.redacted)
	}
	l.Append(s, sc.redacted)
}

// appendBinary adds binary output of stream s to l as it is, not through
// the cleaner, the screen or the line tracking: in PTY mode what the
// cleaner holds for the log (the rows on the screen, the line being
// written, what the redactor held back) is committed first, so that the
// log keeps the order in which the program wrote. last marks the end of
// the stream.
func (o *pipeline) appendBinary(l *outlog.Log, s Stream, b []byte, sc *scratch, last bool) {
	if o.cleaner == nil {
		o.lastLine = o.lastLine[:0]
		l.AppendBinary(s, b)
		return
	}
	sc.clean = o.cleaner.Flush(sc.clean[:0])
	if last {
		sc.clean = o.cleaner.Close(sc.clean)
	}
	sc.redacted = o.redactor.Write(sc.redacted[:0], sc.clean)
	sc.redacted = o.redactor.Flush(sc.redacted)
	l.Append(s, sc.redacted)
	l.AppendBinary(s, b)
}

// droppedReplies is how many replies to the program's queries were
// dropped because it did not read them fast enough.
func (o *pipeline) droppedReplies() int {
	n := o.dropped
	if o.cleaner != nil {
		n += o.cleaner.DroppedReplies()
	}
	if o.replies != nil {
		n += o.replies.Dropped()
	}
	return n
}

// releaseEnded drops what only output still to come needs, once the
// output is complete: the cleaner (closed at the end of the stream, it
// is blank and answers as a new one would: no line, nothing pending) and
// the reply queue once its writer has returned, keeping their counts.
// Called again until the writer is gone; cheap once all is released.
func (o *pipeline) releaseEnded() {
	if o.cleaner != nil {
		o.dropped += o.cleaner.DroppedReplies()
		o.cleaner = nil
	}
	if o.replies != nil && o.replies.stopped() {
		o.dropped += o.replies.Dropped()
		o.replies = nil
	}
}

// resize applies a new terminal size to the cleaner and the screen; rows
// that no longer fit go to l.
func (o *pipeline) resize(l *outlog.Log, cols, rows int) {
	if o.view == nil {
		return
	}
	if o.cleaner != nil {
		if b := o.cleaner.Resize(nil, cols, rows); len(b) > 0 {
			l.Append(Stdout, o.redactor.Write(nil, b))
		}
	}
	o.view.resize(cols, rows)
}

// pending appends what is on the screen but not in the log yet
// ([screen.Cleaner.Pending]); nothing in pipe mode.
func (o *pipeline) pending(dst []byte) []byte {
	if o.cleaner == nil {
		return dst
	}
	return o.cleaner.Pending(dst)
}

// pendingText appends to dst what is on the screen but not in the log yet,
// redacted as the log will have it, without committing it: it starts with
// what the log's redactor holds back, and a possible start of a secret at
// its end is left out. nil in pipe mode.
func (o *pipeline) pendingText(dst []byte) []byte {
	if o.view == nil {
		return dst
	}
	b := append([]byte(nil), o.redactor.Held()...)
	if o.cleaner != nil {
		b = o.cleaner.Pending(b)
	}
	if len(b) == 0 {
		return dst
	}
	return policy.NewRedactor(o.secrets.all()).Write(dst, b)
}

// pendingMatch reports whether re matches a line of what is on the screen
// but not committed yet (screen.Cleaner.Pending), redacted as the log
// would be. head is the log's unfinished last line: a commit (any answer's
// snapshot) can cut a line the program is writing, and what is pending
// then continues it, so the first pending line is looked at after head.
func (o *pipeline) pendingMatch(re *regexp.Regexp, head []byte) bool {
	if o.cleaner == nil {
		return false
	}
	b := o.pending(nil)
	for first := true; len(b) > 0; first = false {
		line := b
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			line, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
		text := string(line)
		if first {
			text = string(head) + text
		}
		if re.MatchString(policy.Redact(o.secrets.all(), text)) {
			return true
		}
	}
	return false
}

// flush commits what is on the screen to l (screen.Cleaner.Commit): the
// rows not yet in the log, and the line being written (a prompt).
func (o *pipeline) flush(l *outlog.Log) {
	if o.cleaner == nil {
		return
	}
	// What the redactor holds back (a possible start of a secret) stays
	// back until the line goes on.
	if b := o.cleaner.Flush(nil); len(b) > 0 {
		l.Append(Stdout, o.redactor.Write(nil, b))
	}
}

// line returns the line the cursor is on and whether the cursor is at its
// end.
func (o *pipeline) line() (string, bool) {
	switch {
	case o.cleaner != nil:
		return o.cleaner.Line()
	case o.view != nil:
		return "", true // a released cleaner was blank
	}
	return string(o.lastLine), true
}

// trackLine keeps the last unterminated line of pipe-mode output.
func (o *pipeline) trackLine(b []byte) {
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] == '\n' {
			o.lastLine = append(o.lastLine[:0], b[i+1:]...)
			return
		}
	}
	if len(o.lastLine)+len(b) > 512 {
		o.lastLine = o.lastLine[:0] // too long to be a prompt
		return
	}
	o.lastLine = append(o.lastLine, b...)
}

// screen returns the rendered screen, redacted, if asked for or while a
// full-screen program runs; nil otherwise and in pipe mode.
func (o *pipeline) screen(asked bool) *screen.Snapshot {
	if o.view == nil || !asked && (o.cleaner == nil || !o.cleaner.AltScreen()) {
		return nil
	}
	s := o.view.snapshot()
	secrets := o.secrets.all()
	for i, l := range s.Lines {
		s.Lines[i] = policy.Redact(secrets, l)
	}
	return &s
}

// styledScreen is the screen with each character's look, redacted; a
// row redaction changed loses its looks (they no longer line up). nil in
// pipe mode.
func (o *pipeline) styledScreen() *screen.Styled {
	if o.view == nil {
		return nil
	}
	s := o.view.styled()
	secrets := o.secrets.all()
	for i, l := range s.Lines {
		if r := policy.Redact(secrets, l); r != l {
			s.Lines[i], s.Looks[i] = r, nil
		}
	}
	return &s
}

// appCursor reports whether the program asked for application cursor keys.
func (o *pipeline) appCursor() bool {
	return o.cleaner != nil && o.cleaner.AppCursor()
}

// screenSum is a digest of what the screen shows, its rows and where the
// cursor is, to tell whether anything visible changed; false in pipe mode.
func (o *pipeline) screenSum() (uint64, bool) {
	if o.view == nil {
		return 0, false
	}
	s := o.view.snapshot()
	h := fnv.New64a()
	for _, l := range s.Lines {
		_, _ = h.Write([]byte(l))
		_, _ = h.Write([]byte{'\n'})
	}
	cursor := strconv.AppendInt(nil, int64(s.CursorX), 10)
	cursor = strconv.AppendInt(append(cursor, ','), int64(s.CursorY), 10)
	_, _ = h.Write(cursor)
	return h.Sum64(), true
}
