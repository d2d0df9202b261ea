//go:build unix

package console

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/term"

	"github.com/yieldshell/yieldshell/internal/safetext"
	"github.com/yieldshell/yieldshell/internal/wire"
)

// detachKey (Ctrl-], as in telnet) leaves attach; the process keeps
// running. In --watch mode Ctrl-C does too.
const detachKey = 0x1d

// attachMode says whether what the person types goes to the process.
type attachMode int

const (
	typing attachMode = iota
	watching
)

// attach is `yieldshell attach ID|NAME [--watch]`: the process's terminal
// as it looks now, then its output as it comes; what the person types goes
// to the process (not with watch). The terminal is put in raw mode and
// restored on every way out: detach, the process's end, an error, a
// signal (SIGTERM, SIGINT, SIGHUP end ctx), or a panic.
func attach(ctx context.Context, cs *mcp.ClientSession, id string, mode attachMode, in *os.File, out io.Writer) error {
	fd := int(in.Fd())
	if !term.IsTerminal(fd) {
		return errors.New("attach needs a terminal: run it in one (yieldshell logs -f ID follows without one)")
	}
	v, err := look(ctx, cs, id)
	if err != nil {
		return err
	}
	id = v.pos.ProcessID
	state, err := term.MakeRaw(fd)
	if err != nil {
		return fmt.Errorf("attaching: making the terminal raw: %w", err)
	}
	defer term.Restore(fd, state)
	fmt.Fprintf(out, "\x1b]2;%s — Ctrl-] detaches\x07", id)
	drawScreen(out, v.scr.Screen)
	if v.tail.Stdout != nil {
		io.WriteString(out, strings.ReplaceAll(*v.tail.Stdout, "\n", "\r\n"))
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	a := &attacher{cs: cs, id: id, out: out, seq: *v.pos.NextSeq, mode: mode, fd: fd}
	keys := make(chan []byte, 64)
	// Reading the terminal cannot be interrupted; the goroutine ends with
	// the process, after attach has returned.
	go readKeys(in, keys)
	if mode == typing {
		a.resize(ctx)
		defer a.restoreSize(v.scr.Screen)
	}
	streamed := make(chan error, 1)
	go func() { streamed <- a.stream(ctx) }()
	reason, err := a.relay(ctx, keys, streamed)
	cancel()
	if serr := <-streamed; err == nil {
		err = serr
	}
	if err != nil {
		return err
	}
	if reason != "" {
		fmt.Fprintf(out, "\r\n[yieldshell: %s]\r\n", reason)
	}
	return nil
}

// view is a running process as attach first shows it: where its log
// stands, and its screen or, for a process on pipes, its newest output.
type view struct{ pos, scr, tail wire.OutputOut }

// look reads where the log stands, then the screen: output in between
// shows twice rather than never.
func look(ctx context.Context, cs *mcp.ClientSession, id string) (view, error) {
	var v view
	if err := callInto(ctx, cs, "read", wire.ReadIn{ProcessID: id, MaxOutputBytes: new(1)}, &v.pos); err != nil {
		return v, err
	}
	id = v.pos.ProcessID
	if v.pos.Status != "running" {
		return v, fmt.Errorf("%s is not running (%s): yieldshell logs %s shows its output", id, v.pos.Status, id)
	}
	if err := callInto(ctx, cs, "read", wire.ReadIn{ProcessID: id, View: "screen"}, &v.scr); err != nil {
		if err := callInto(ctx, cs, "read", wire.ReadIn{ProcessID: id, SinceSeq: new(max(*v.pos.NextSeq-2000, 0))}, &v.tail); err != nil {
			return v, err
		}
	}
	return v, nil
}

// relay sends what the person types to the process (with typing) and
// follows the terminal's size until the stream ends, ctx is done or the
// person detaches; reason says why it ended, if not by the stream.
func (a *attacher) relay(ctx context.Context, keys chan []byte, streamed chan error) (reason string, err error) {
	winch := make(chan os.Signal, 1)
	signal.Notify(winch, syscall.SIGWINCH)
	defer signal.Stop(winch)
	for {
		select {
		case err := <-streamed:
			streamed <- err // for the join in attach
			if ctx.Err() != nil {
				// The stream stops when ctx does: that is the reason, not
				// the process.
				return "interrupted; " + a.id + " keeps running", nil
			}
			return "", nil // the process ended (stream said so) or an error
		case <-ctx.Done():
			return "interrupted; " + a.id + " keeps running", nil
		case <-winch:
			if a.mode == typing {
				a.resize(ctx)
			}
		case b, ok := <-keys:
			if !ok {
				return "the terminal closed; " + a.id + " keeps running", nil
			}
			b = drain(b, keys) // everything typed so far in one write
			i := bytes.IndexByte(b, detachKey)
			if a.mode == watching {
				i = bytes.IndexAny(b, "\x1d\x03")
			}
			if i >= 0 {
				b, reason = b[:i], "detached from "+a.id+"; it keeps running"
			}
			if a.mode == typing && len(b) > 0 {
				if err := a.write(ctx, string(b)); err != nil {
					return "", err
				}
			}
			if reason != "" {
				return reason, nil
			}
		}
	}
}

// drain appends to b what else waits in keys.
func drain(b []byte, keys chan []byte) []byte {
	for {
		select {
		case c := <-keys:
			b = append(b, c...)
		default:
			return b
		}
	}
}

// attacher streams a process's output to the terminal; seq is owned by
// stream.
type attacher struct {
	cs   *mcp.ClientSession
	id   string
	out  io.Writer
	seq  int64
	mode attachMode
	fd   int // the person's terminal

	mu         sync.Mutex
	cancelWait context.CancelFunc // ends the wait in flight, if any
	kicked     bool               // a write came while no wait was in flight
}

// stream prints output as it comes until the process ends or ctx is done.
// It blocks in wait until a new line is complete; a write kicks it (the
// wait is cancelled and what is there is read), so typed characters show
// at once. While a full-screen program runs, the answers carry its screen,
// which is redrawn instead.
func (a *attacher) stream(ctx context.Context) error {
	for ctx.Err() == nil {
		wctx, cancel := context.WithCancel(ctx)
		a.mu.Lock()
		kicked := a.kicked
		a.kicked, a.cancelWait = false, cancel
		a.mu.Unlock()
		var o wire.OutputOut
		var err error
		if !kicked {
			err = callInto(wctx, a.cs, "wait", wire.WaitIn{ProcessID: a.id, SinceSeq: new(a.seq), Until: "^", TimeoutMs: new(30000)}, &o)
		}
		a.mu.Lock()
		a.cancelWait = nil
		a.mu.Unlock()
		cancel()
		if ctx.Err() != nil {
			return nil
		}
		if kicked || err != nil && wctx.Err() != nil {
			err = callInto(ctx, a.cs, "read", wire.ReadIn{ProcessID: a.id, SinceSeq: new(a.seq)}, &o)
		}
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		if o.Screen != nil && o.Screen.AltScreen {
			drawScreen(a.out, o.Screen)
		} else if o.Stdout != nil {
			io.WriteString(a.out, strings.ReplaceAll(safetext.Lines(*o.Stdout), "\n", "\r\n"))
		}
		if o.NextSeq != nil {
			a.seq = *o.NextSeq
		}
		if o.Status != "running" && !o.Capped {
			code := ""
			if o.ExitCode != nil {
				code = fmt.Sprintf(", exit code %d", *o.ExitCode)
			}
			fmt.Fprintf(a.out, "\r\n[yieldshell: %s %s%s]\r\n", a.id, o.Status, code)
			return nil
		}
	}
	return nil
}

// kick makes stream show what is there now.
func (a *attacher) kick() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.cancelWait != nil {
		a.cancelWait()
	} else {
		a.kicked = true
	}
}

// write sends typed bytes to the process and kicks the stream once the
// program has taken them (the answer comes when it waits for input again,
// or after a short while).
func (a *attacher) write(ctx context.Context, s string) error {
	var o wire.WriteOut
	err := callInto(ctx, a.cs, "write", wire.WriteIn{ProcessID: a.id, Input: s, YieldMs: new(100), MaxOutputBytes: new(1)}, &o)
	if err != nil {
		return err
	}
	a.kick()
	return nil
}

// resize gives the process our terminal's size.
func (a *attacher) resize(ctx context.Context) {
	cols, rows, err := term.GetSize(a.fd)
	if err != nil || cols < 2 || rows < 2 {
		return
	}
	var o wire.WriteOut
	_ = callInto(ctx, a.cs, "write", wire.WriteIn{ProcessID: a.id, Cols: new(cols), Rows: new(rows)}, &o)
}

// restoreSize gives the agent back the size it had.
func (a *attacher) restoreSize(scr *wire.ScreenOut) {
	if scr == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	var o wire.WriteOut
	_ = callInto(ctx, a.cs, "write", wire.WriteIn{ProcessID: a.id, Cols: new(scr.Cols), Rows: new(scr.Rows)}, &o)
}

// drawScreen clears the terminal and draws a rendered screen with its cursor.
func drawScreen(w io.Writer, s *wire.ScreenOut) {
	if s == nil {
		return
	}
	var b strings.Builder
	b.WriteString("\x1b[H\x1b[2J")
	for i, l := range s.Lines {
		if i > 0 {
			b.WriteString("\r\n")
		}
		b.WriteString(safetext.Visible(l))
	}
	fmt.Fprintf(&b, "\x1b[%d;%dH", s.CursorRow+1, s.CursorCol+1)
	io.WriteString(w, b.String())
}

// readKeys sends what the terminal delivers, chunk by chunk; it closes
// keys at end of input.
func readKeys(in io.Reader, keys chan<- []byte) {
	defer close(keys)
	for {
		buf := make([]byte, 4096)
		n, err := in.Read(buf)
		if n > 0 {
			keys <- buf[:n]
		}
		if err != nil {
			return
		}
	}
}
