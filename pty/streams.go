//go:build unix

package pty

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"syscall"

	cpty "github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// streams is the server's side of a command's standard input and output:
// a terminal or three pipes.
type streams interface {
	// child returns what the child gets as stdin, stdout and stderr, and
	// how it must be started to own them.
	child() ([]*os.File, *syscall.SysProcAttr)
	// closeChild closes the server's copies of the child's ends.
	closeChild()
	input() *os.File
	stdout() io.Reader
	stderr() io.Reader // nil for a terminal
	inputPath() string
	// checkInput returns ErrInputClosed when nothing could read a write.
	checkInput() error
	closeInput(p *Process) error
	// pending reports whether output the program wrote has not been
	// handed on by the reader yet.
	pending() bool
	// close closes every descriptor the server holds.
	close() error
}

// terminal is a pseudo-terminal: the master is the server's only
// descriptor, and stdin, stdout and stderr of the child are the slave.
type terminal struct {
	master *os.File
	slave  *os.File
	// rc reaches the master's fd without (*os.File).Fd, which would switch
	// it back to blocking mode.
	rc     syscall.RawConn
	out    *eofReader
	closed *atomic.Bool
	held   atomic.Int32 // see eofReader.held
}

func openTerminal(cols, rows uint16, closed *atomic.Bool) (*terminal, error) {
	t, err := openPair()
	if err != nil {
		return nil, err
	}
	return t.attach(cols, rows, closed)
}

// openPair opens a terminal and configures it but for its size: a
// terminal no process has used yet, which [terminal.attach] gives one.
func openPair() (*terminal, error) {
	master, slave, err := cpty.Open()
	if err != nil {
		return nil, fmt.Errorf("opening pty: %w", err)
	}
	t := &terminal{master: master, slave: slave}
	if t.rc, err = master.SyscallConn(); err == nil {
		err = setupMaster(t.rc)
	}
	if err != nil {
		t.discard()
		return nil, fmt.Errorf("configuring pty: %w", err)
	}
	return t, nil
}

// attach sizes t for a Process whose closed flag is closed.
func (t *terminal) attach(cols, rows uint16, closed *atomic.Bool) (*terminal, error) {
	if cols == 0 {
		cols = DefaultCols
	}
	if rows == 0 {
		rows = DefaultRows
	}
	var opErr error
	err := t.rc.Control(func(fd uintptr) {
		opErr = unix.IoctlSetWinsize(int(fd), unix.TIOCSWINSZ, &unix.Winsize{Col: cols, Row: rows})
	})
	if err = cmp.Or(err, opErr); err != nil {
		t.discard()
		return nil, fmt.Errorf("sizing pty: %w", err)
	}
	t.closed = closed
	t.out = &eofReader{rc: t.rc, closed: closed, holder: holder{held: &t.held}}
	return t, nil
}

// ahead holds the streams (a terminal, or pipes) opened ahead of the
// command that will use them. A start takes them and, once its child is
// forked, opens the next: the open (40-50 us, a fifth of the way from an
// exec call to its fork) then happens while that child runs, not before.
type ahead[T interface {
	comparable
	discard()
}] struct {
	open func() (T, error)

	mu     sync.Mutex
	v      T // the zero T when none is ready
	closed bool
}

// take returns what is ready, if anything is.
func (a *ahead[T]) take() (v T, ok bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	var none T
	v, a.v = a.v, none
	return v, v != none
}

// refill opens the next unless one is ready. A failure leaves none: the
// next start opens its own and says what went wrong.
func (a *ahead[T]) refill() {
	var none T
	a.mu.Lock()
	ready := a.v != none || a.closed
	a.mu.Unlock()
	if ready {
		return
	}
	v, err := a.open()
	if err != nil {
		return
	}
	a.mu.Lock()
	keep := a.v == none && !a.closed
	if keep {
		a.v = v
	}
	a.mu.Unlock()
	if !keep {
		v.discard()
	}
}

// close discards what is ready, and keeps anything from being opened
// after.
func (a *ahead[T]) close() {
	var none T
	a.mu.Lock()
	v := a.v
	a.v, a.closed = none, true
	a.mu.Unlock()
	if v != none {
		v.discard()
	}
}

// discard closes a terminal no process used.
func (t *terminal) discard() {
	t.closeChild()
	_ = t.master.Close()
}

func (t *terminal) child() ([]*os.File, *syscall.SysProcAttr) {
	return []*os.File{t.slave, t.slave, t.slave}, &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
}

func (t *terminal) closeChild()       { _ = t.slave.Close() }
func (t *terminal) input() *os.File   { return t.master }
func (t *terminal) stdout() io.Reader { return t.out }
func (t *terminal) stderr() io.Reader { return nil }
func (t *terminal) inputPath() string { return t.slave.Name() }
func (t *terminal) close() error      { return t.master.Close() }

// checkInput asks whether any process holds the slave side: a master with
// no slave holder accepts writes and drops them (measured on Linux 6.18).
func (t *terminal) checkInput() error {
	revents, err := t.poll(unix.POLLOUT)
	if err != nil {
		return err
	}
	if revents&unix.POLLHUP != 0 {
		return ErrInputClosed
	}
	return nil
}

// closeInput sends the terminal's EOF character.
func (t *terminal) closeInput(p *Process) error {
	tio, err := t.termios()
	if err != nil {
		return err
	}
	eof := tio.Cc[unix.VEOF]
	if eof == 0 { // _POSIX_VDISABLE, e.g. after `stty eof undef`
		return errors.New("terminal has no eof character")
	}
	ctx, cancel := context.WithTimeout(context.Background(), p.eofWriteTimeout)
	defer cancel()
	b := []byte{eof}
	// In canonical mode EOF after an unfinished line only hands the line
	// over; a second one ends the input, as a person presses Ctrl-D twice.
	if p.lineOpenNow() && tio.Lflag&unix.ICANON != 0 {
		b = append(b, eof)
	}
	return p.writeInput(ctx, b)
}

// pending polls the master without waiting: unlike FIONREAD, a poll first
// lets the line discipline take in what the program wrote (the kernel
// queues a slave's writes for the master asynchronously), so a byte whose
// write has returned is always seen. The terminal is asked before the
// readers: a byte gone from it when asked was taken by a read that had
// raised held before it began.
func (t *terminal) pending() bool {
	revents, _ := t.poll(unix.POLLIN)
	return revents&unix.POLLIN != 0 || t.held.Load() > 0
}

// poll polls the master for events without waiting and returns what it
// reported.
func (t *terminal) poll(events int16) (int16, error) {
	fds := []unix.PollFd{{Events: events}}
	err := t.control(func(fd int) error {
		fds[0].Fd = int32(fd)
		for {
			_, err := unix.Poll(fds, 0)
			if err != unix.EINTR {
				return err
			}
		}
	})
	return fds[0].Revents, err
}

// control runs fn on the master's descriptor, which fails cleanly after Close
// instead of touching a reused fd number.
func (t *terminal) control(fn func(fd int) error) error {
	var opErr error
	if err := t.rc.Control(func(fd uintptr) { opErr = fn(int(fd)) }); err != nil {
		if t.closed.Load() {
			return os.ErrClosed
		}
		return err
	}
	return opErr
}

func (t *terminal) termios() (*unix.Termios, error) {
	var tio *unix.Termios
	err := t.control(func(fd int) (err error) {
		tio, err = unix.IoctlGetTermios(fd, ioctlGetTermios)
		return err
	})
	return tio, err
}

// setupMaster configures the terminal before the child can see it:
// non-blocking (so deadlines and Close work) and IUTF8 (so the line
// discipline erases whole UTF-8 characters), all without (*os.File).Fd.
func setupMaster(rc syscall.RawConn) error {
	var opErr error
	err := rc.Control(func(fd uintptr) {
		if opErr = syscall.SetNonblock(int(fd), true); opErr != nil {
			return
		}
		var t *unix.Termios
		if t, opErr = unix.IoctlGetTermios(int(fd), ioctlGetTermios); opErr != nil {
			return
		}
		t.Iflag |= unix.IUTF8
		t.Oflag |= unix.OPOST | unix.ONLCR
		opErr = unix.IoctlSetTermios(int(fd), ioctlSetTermios, t)
	})
	return cmp.Or(err, opErr)
}

// pipes are three pipes; the server keeps the write end of stdin and the
// read ends of stdout and stderr.
type pipes struct {
	ends        [3]*os.File // the child's: stdin's read end, the write ends of stdout and stderr
	in          *os.File
	out, errOut *os.File
	outR, errR  *eofReader
	path        string
	inputClosed *atomic.Bool
	held        atomic.Int32 // see eofReader.held
}

func openPipes(closed, inputClosed *atomic.Bool) (*pipes, error) {
	p, err := openPipeSet()
	if err != nil {
		return nil, err
	}
	return p.attach(closed, inputClosed)
}

// openPipeSet opens the three pipes, for no process yet: [pipes.attach]
// gives them one.
func openPipeSet() (*pipes, error) {
	p := &pipes{}
	var err error
	mine := []**os.File{&p.in, &p.out, &p.errOut}
	for i := range p.ends {
		var r, w *os.File
		if r, w, err = os.Pipe(); err != nil {
			p.discard()
			return nil, fmt.Errorf("creating pipe: %w", err)
		}
		if i == 0 {
			p.ends[i], *mine[i] = r, w
		} else {
			p.ends[i], *mine[i] = w, r
		}
	}
	var st unix.Stat_t
	if unix.Fstat(int(p.ends[0].Fd()), &st) == nil {
		p.path = fmt.Sprintf("pipe:[%d]", st.Ino)
	}
	return p, nil
}

// attach gives p to a Process whose flags are closed and inputClosed.
func (p *pipes) attach(closed, inputClosed *atomic.Bool) (*pipes, error) {
	p.inputClosed = inputClosed
	var err error
	if p.outR, err = newEOFReader(p.out, closed, &p.held); err == nil {
		p.errR, err = newEOFReader(p.errOut, closed, &p.held)
	}
	if err != nil {
		p.discard()
		return nil, fmt.Errorf("configuring pipes: %w", err)
	}
	return p, nil
}

// discard closes pipes no process used.
func (p *pipes) discard() {
	p.closeChild()
	_ = p.close()
}

func (p *pipes) child() ([]*os.File, *syscall.SysProcAttr) {
	return p.ends[:], &syscall.SysProcAttr{Setsid: true}
}

func (p *pipes) closeChild() {
	for _, f := range p.ends {
		if f != nil {
			_ = f.Close()
		}
	}
}

func (p *pipes) input() *os.File   { return p.in }
func (p *pipes) stdout() io.Reader { return p.outR }
func (p *pipes) stderr() io.Reader { return p.errR }
func (p *pipes) inputPath() string { return p.path }
func (p *pipes) checkInput() error { return nil }

// closeInput closes the stdin pipe.
func (p *pipes) closeInput(*Process) error {
	p.inputClosed.Store(true)
	if err := p.in.Close(); err != nil && !errors.Is(err, os.ErrClosed) {
		return err
	}
	return nil
}

// pending: a pipe's bytes are countable the moment the write returns (and,
// as for a terminal, the pipes are asked before the readers).
func (p *pipes) pending() bool {
	n, err := p.unread()
	return err == nil && n > 0 || p.held.Load() > 0
}

func (p *pipes) unread() (int, error) {
	total := 0
	for _, f := range []*os.File{p.out, p.errOut} {
		rc, err := f.SyscallConn()
		if err != nil {
			return 0, err
		}
		var n int
		var opErr error
		if err := rc.Control(func(fd uintptr) { n, opErr = unix.IoctlGetInt(int(fd), ioctlUnread) }); err != nil {
			return 0, err
		}
		if opErr != nil {
			return 0, opErr
		}
		total += n
	}
	return total, nil
}

func (p *pipes) close() error {
	var first error
	for _, f := range []*os.File{p.in, p.out, p.errOut} {
		// stdin may already be closed by closeInput.
		if f == nil {
			continue
		}
		if err := f.Close(); err != nil && !errors.Is(err, os.ErrClosed) && first == nil {
			first = err
		}
	}
	return first
}

// eofReader reads a stream in batches and reports its ends as io.EOF: EIO
// is how the master says the last slave descriptor closed, and ErrClosed is
// what a reader woken by Close gets. One goroutine reads it.
type eofReader struct {
	rc syscall.RawConn
	// closed is the process's flag, set before its descriptors are closed:
	// a raw read on a closed file fails with an error that cannot be
	// matched from outside internal/poll.
	closed *atomic.Bool
	// holder is raised before the read system call, so that there is no
	// moment in which bytes have left the kernel but are not counted, and
	// lowered when the read found nothing or when the caller comes back
	// for more.
	holder
}

func newEOFReader(f *os.File, closed *atomic.Bool, held *atomic.Int32) (*eofReader, error) {
	rc, err := f.SyscallConn()
	return &eofReader{rc: rc, closed: closed, holder: holder{held: held}}, err
}

// Read fills b with all the output there is, in as many reads as that takes
// (a terminal hands out at most about 4 KiB a read), and waits only while
// there is none: a busy program's output then costs its reader one wake-up
// per batch instead of one per 4 KiB. What it returns counts as held
// until the next Read.
func (r *eofReader) Read(b []byte) (int, error) {
	r.hold(false)
	n := 0
	var readErr error
	err := r.rc.Read(func(fd uintptr) bool {
		for n < len(b) {
			r.hold(true)
			m, e := unix.Read(int(fd), b[n:])
			switch {
			case e == unix.EINTR:
				continue
			case e == unix.EAGAIN:
				r.hold(n > 0)
				return n > 0 // nothing now: done if something was read, else wait
			case e != nil:
				readErr = e
				return true
			case m == 0:
				if n == 0 {
					readErr = io.EOF
				}
				return true
			}
			n += m
		}
		return true
	})
	if n > 0 {
		return n, nil // an error comes again on the next read
	}
	r.hold(false)
	if err == nil {
		err = readErr
	}
	if errors.Is(err, syscall.EIO) || errors.Is(err, os.ErrClosed) || r.closed.Load() {
		err = io.EOF
	}
	return 0, err
}
