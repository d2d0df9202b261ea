package session

import (
	"bytes"
	"context"
	"fmt"
	"time"

	"github.com/yieldshell/yieldshell/internal/disklog"
	"github.com/yieldshell/yieldshell/internal/outlog"
)

// diskRun is p's run as a log file follows it ([disklog.Dir.Follow]).
func (p *Process) diskRun() disklog.Run {
	f := &diskFollower{p: p}
	return disklog.Run{
		ID: p.ID, Name: p.Name, Cwd: p.Cwd, Command: p.Command, StartedAt: p.StartedAt,
		Since: f.since,
		End: func() disklog.End {
			in := p.Info()
			return disklog.End{Status: string(in.Status), ExitCode: in.ExitCode, Signal: in.Signal, EndedBy: string(in.EndedBy)}
		},
	}
}

// diskFollower is what a log file shows of a process: its log up to a
// position and, after it, possibly rows that were on the screen when the
// output went quiet and that the log does not hold yet (ahead). It looks
// without committing: the log is the same with a log file or without.
// Owned by the goroutine that writes the file.
type diskFollower struct {
	p     *Process
	ahead []byte // shown in the file past the position, not in the log yet
	// midLine: the file's last byte is not a line end.
	midLine bool
}

// since waits until p's log has bytes past pos or p has ended, and appends
// to buf what the file must add: the bytes from pos on, both streams in log
// order, less what it shows already. It returns the position after them,
// how many bytes from pos on were evicted before they could be read, and
// whether p had ended (then everything it will ever log is included).
//
// In PTY mode the rows still on the screen are not in the log until an
// answer commits them, they scroll off or the program ends (see the package
// doc). So that a file followed with tail -F does not lag behind a program
// that printed and went quiet, since also returns, once the output has been
// quiet for timing.diskCommit, the rows on the screen as they are then,
// without committing them; when the log gets them, only what the file does
// not show yet is added, and rows that were redrawn in between are added
// again, as they are logged.
func (f *diskFollower) since(buf []byte, pos int64) ([]byte, int64, int64, bool) {
	p := f.p
	ctx := context.Background()
	for {
		o := p.Await(ctx, time.Time{}, Until{Output: true, From: pos, Quiet: p.timing.diskCommit})
		if o.Reason != ReasonQuiet {
			break
		}
		p.mu.Lock()
		grew := p.log.End() > pos
		var screen []byte
		if !grew {
			screen = p.out.pendingText(nil)
		}
		p.mu.Unlock()
		if grew {
			break
		}
		if out, ok := f.show(buf, screen); ok {
			f.wrote(out)
			return out, pos, 0, false
		}
		// Nothing new on the screen: quiet counts again only after the next output.
		p.Await(ctx, time.Time{}, Until{Output: true, From: pos, Next: true})
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	var lost int64
	if pos < p.log.Start() {
		lost = p.log.Start() - pos
		pos = p.log.Start()
		f.ahead = f.ahead[:0] // the file says what is missing, on a line of its own
	}
	var bin outlog.Part // binary output not yet noted
	for c := range p.log.Chunks(pos) {
		end := c.Pos + int64(len(c.Data))
		if end <= pos {
			continue
		}
		switch {
		case c.Binary && bin.To == pos && bin.Stream == c.Stream:
			bin.To = end
		case c.Binary:
			buf = f.noteBinary(buf, bin)
			bin = outlog.Part{From: pos, To: end, Stream: c.Stream}
		default:
			buf = f.noteBinary(buf, bin)
			bin = outlog.Part{}
			buf = f.settle(buf, c.Data[pos-c.Pos:])
		}
		pos = end
	}
	buf = f.noteBinary(buf, bin)
	f.wrote(buf)
	return buf, pos, lost, p.lc.ended()
}

// noteBinary appends to buf, on a line of its own, a note of binary output
// part instead of its bytes (none for an empty part). The file is for
// people to follow in a terminal, which would obey the escape sequences
// in a program's binary output (a clipboard write, a link, a title): it
// shows text only, as the log's text reads do; read with encoding
// "base64" returns the bytes.
func (f *diskFollower) noteBinary(buf []byte, part outlog.Part) []byte {
	if part.To <= part.From {
		return buf
	}
	buf = f.breakLine(buf)
	f.ahead = f.ahead[:0]
	if len(buf) > 0 && buf[len(buf)-1] != '\n' || len(buf) == 0 && f.midLine {
		buf = append(buf, '\n')
	}
	return fmt.Appendf(buf, "[binary output: %d bytes at seq %d-%d, not shown; read them with encoding \"base64\"]\n",
		part.To-part.From, part.From, part.To)
}

// wrote records what the file's last byte will be once buf is written.
func (f *diskFollower) wrote(buf []byte) {
	if n := len(buf); n > 0 {
		f.midLine = buf[n-1] != '\n'
	}
}

// show appends to buf what the file must add to show screen, the text on
// the screen past the log's end: the rest of it when the file shows its
// beginning already, or all of it, from a new line, when the screen no
// longer has what the file shows. ok is false when there is nothing to add.
func (f *diskFollower) show(buf, screen []byte) (_ []byte, ok bool) {
	switch {
	case len(screen) == 0 || bytes.Equal(screen, f.ahead):
		return buf, false
	case bytes.HasPrefix(screen, f.ahead):
		buf = append(buf, screen[len(f.ahead):]...)
	default:
		buf = append(f.breakLine(buf), screen...)
	}
	f.ahead = append(f.ahead[:0], screen...)
	return buf, true
}

// settle appends to buf what the file must add for b, bytes the log got:
// none of them if the file shows them already, the rest of them if it
// shows their beginning, or all of them, from a new line, if it shows
// something else (rows that were redrawn after it showed them).
func (f *diskFollower) settle(buf, b []byte) []byte {
	switch {
	case len(f.ahead) == 0:
		return append(buf, b...)
	case bytes.HasPrefix(f.ahead, b):
		f.ahead = f.ahead[len(b):]
		return buf
	case bytes.HasPrefix(b, f.ahead):
		buf = append(buf, b[len(f.ahead):]...)
	default:
		buf = append(f.breakLine(buf), b...)
	}
	f.ahead = f.ahead[:0]
	return buf
}

// breakLine ends the line the file shows ahead of the log, if it is open.
func (f *diskFollower) breakLine(buf []byte) []byte {
	if n := len(f.ahead); n > 0 && f.ahead[n-1] != '\n' {
		buf = append(buf, '\n')
	}
	return buf
}
