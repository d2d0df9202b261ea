package pty

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// streams is the server's side of a command's standard input and output:
// a pseudo console or three pipes.
type streams interface {
	childSide
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
	// close closes every handle the server holds.
	close() error
}

// pipePair makes a named pipe whose server end is overlapped, so the
// runtime's poller gives it deadlines and Close unblocks its reader and
// writer, and whose child end is an ordinary synchronous handle
// (inheritable when inherit is set): programs, and the pseudo console,
// expect that.
func pipePair(serverReads, inherit bool) (*os.File, windows.Handle, error) {
	var nonce [12]byte
	_, _ = rand.Read(nonce[:])
	name := fmt.Sprintf(`\\.\pipe\yieldshell-%d-%x`, os.Getpid(), nonce)
	name16, err := windows.UTF16PtrFromString(name)
	if err != nil {
		return nil, 0, err
	}
	access, caccess := uint32(windows.PIPE_ACCESS_OUTBOUND), uint32(windows.GENERIC_READ)
	if serverReads {
		access, caccess = windows.PIPE_ACCESS_INBOUND, windows.GENERIC_WRITE
	}
	h, err := windows.CreateNamedPipe(name16,
		access|windows.FILE_FLAG_OVERLAPPED|windows.FILE_FLAG_FIRST_PIPE_INSTANCE,
		windows.PIPE_TYPE_BYTE|windows.PIPE_READMODE_BYTE|windows.PIPE_WAIT|windows.PIPE_REJECT_REMOTE_CLIENTS,
		1, 64<<10, 64<<10, 0, nil)
	if err != nil {
		return nil, 0, fmt.Errorf("creating pipe: %w", err)
	}
	sa := &windows.SecurityAttributes{Length: uint32(unsafe.Sizeof(windows.SecurityAttributes{}))}
	if inherit {
		sa.InheritHandle = 1
	}
	c, err := windows.CreateFile(name16, caccess, 0, sa, windows.OPEN_EXISTING, 0, 0)
	if err != nil {
		_ = windows.CloseHandle(h)
		return nil, 0, fmt.Errorf("opening pipe: %w", err)
	}
	return os.NewFile(uintptr(h), name), c, nil
}

// terminal is a pseudo console: the server writes its input pipe and reads
// its output pipe; the console's own ends go to the console at creation.
type terminal struct {
	in, out  *os.File
	conIn    windows.Handle // the console's ends, closed once it has them
	conOut   windows.Handle
	outR     *eofReader
	closed   *atomic.Bool
	held     atomic.Int32
	p        *Process
	mu       sync.Mutex // guards hpc and the size
	hpc      windows.Handle
	cols     uint16
	rows     uint16
	hangOnce sync.Once
}

func openTerminal(cols, rows uint16, closed *atomic.Bool, p *Process) (*terminal, error) {
	if cols == 0 {
		cols = DefaultCols
	}
	if rows == 0 {
		rows = DefaultRows
	}
	t := &terminal{closed: closed, p: p, cols: cols, rows: rows}
	var err error
	if t.in, t.conIn, err = pipePair(false, false); err != nil {
		return nil, err
	}
	if t.out, t.conOut, err = pipePair(true, false); err != nil {
		t.closeChild()
		_ = t.in.Close()
		return nil, err
	}
	size := windows.Coord{X: int16(cols), Y: int16(rows)}
	if err = windows.CreatePseudoConsole(size, t.conIn, t.conOut, 0, &t.hpc); err != nil {
		t.closeChild()
		_ = t.in.Close()
		_ = t.out.Close()
		return nil, fmt.Errorf("creating pseudo console: %w", err)
	}
	t.outR = &eofReader{f: t.out, closed: closed, holder: holder{held: &t.held}}
	return t, nil
}

// startup attaches the child to the pseudo console. The standard handles
// are set, and empty, so the child does not inherit the server's own
// (its stdout is the protocol): Windows then gives it the console's.
func (t *terminal) startup(si *windows.StartupInfoEx, al *windows.ProcThreadAttributeListContainer) (bool, error) {
	si.Flags |= windows.STARTF_USESTDHANDLES
	t.mu.Lock()
	hpc := t.hpc
	t.mu.Unlock()
	if err := al.Update(windows.PROC_THREAD_ATTRIBUTE_PSEUDOCONSOLE, *(*unsafe.Pointer)(unsafe.Pointer(&hpc)), unsafe.Sizeof(hpc)); err != nil {
		return false, err
	}
	return false, nil
}

func (t *terminal) closeChild() {
	for _, h := range []*windows.Handle{&t.conIn, &t.conOut} {
		if *h != 0 {
			_ = windows.CloseHandle(*h)
			*h = 0
		}
	}
}

func (t *terminal) input() *os.File   { return t.in }
func (t *terminal) stdout() io.Reader { return t.outR }
func (t *terminal) stderr() io.Reader { return nil }
func (t *terminal) inputPath() string { return "" }

// checkInput: the console takes input while a process of the command
// lives.
func (t *terminal) checkInput() error {
	if t.p.sys.active() == 0 {
		return ErrInputClosed
	}
	return nil
}

// closeInput types Ctrl-Z and Enter: end of input for a program reading
// the console a line at a time.
func (t *terminal) closeInput(p *Process) error {
	ctx, cancel := context.WithTimeout(context.Background(), p.eofWriteTimeout)
	defer cancel()
	b := []byte("\x1a\r")
	if p.lineOpenNow() {
		b = append([]byte("\r"), b...)
	}
	return p.writeInput(ctx, b)
}

// interrupt types Ctrl-C: the console turns it into CTRL_C_EVENT for every
// process attached to it.
func (t *terminal) interrupt() error {
	ctx, cancel := context.WithTimeout(context.Background(), t.p.eofWriteTimeout)
	defer cancel()
	return t.p.writeInput(ctx, []byte{0x03})
}

// pending asks the output pipe, then the reader.
func (t *terminal) pending() bool {
	return peekPipe(t.out) > 0 || t.held.Load() > 0
}

func (t *terminal) resize(cols, rows uint16) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.hpc == 0 {
		return os.ErrClosed
	}
	if err := windows.ResizePseudoConsole(t.hpc, windows.Coord{X: int16(cols), Y: int16(rows)}); err != nil {
		return err
	}
	t.cols, t.rows = cols, rows
	return nil
}

func (t *terminal) size() (uint16, uint16) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.hpc == 0 {
		return 0, 0
	}
	return t.cols, t.rows
}

// hangUp closes the pseudo console: its processes get CTRL_CLOSE_EVENT,
// and the output pipe reaches its end once the console has written
// everything.
func (t *terminal) hangUp() {
	t.hangOnce.Do(func() {
		t.mu.Lock()
		hpc := t.hpc
		t.hpc = 0
		t.mu.Unlock()
		if hpc != 0 {
			windows.ClosePseudoConsole(hpc)
		}
	})
}

func (t *terminal) close() error {
	t.hangUp()
	err := t.in.Close()
	if e := t.out.Close(); err == nil {
		err = e
	}
	return err
}

// pipes are three pipes; the server keeps the write end of stdin and the
// read ends of stdout and stderr.
type pipes struct {
	ends        [3]windows.Handle // the child's
	in          *os.File
	out, errOut *os.File
	outR, errR  *eofReader
	inputClosed *atomic.Bool
	held        atomic.Int32
}

func openPipes(closed, inputClosed *atomic.Bool) (*pipes, error) {
	p := &pipes{inputClosed: inputClosed}
	var err error
	if p.in, p.ends[0], err = pipePair(false, true); err == nil {
		if p.out, p.ends[1], err = pipePair(true, true); err == nil {
			p.errOut, p.ends[2], err = pipePair(true, true)
		}
	}
	if err != nil {
		p.closeChild()
		_ = p.close()
		return nil, err
	}
	p.outR = &eofReader{f: p.out, closed: closed, holder: holder{held: &p.held}}
	p.errR = &eofReader{f: p.errOut, closed: closed, holder: holder{held: &p.held}}
	return p, nil
}

// startup hands the child its three ends, and only those.
func (p *pipes) startup(si *windows.StartupInfoEx, al *windows.ProcThreadAttributeListContainer) (bool, error) {
	si.Flags |= windows.STARTF_USESTDHANDLES
	si.StdInput, si.StdOutput, si.StdErr = p.ends[0], p.ends[1], p.ends[2]
	if err := al.Update(windows.PROC_THREAD_ATTRIBUTE_HANDLE_LIST, unsafe.Pointer(&p.ends[0]), unsafe.Sizeof(p.ends)); err != nil {
		return false, err
	}
	return true, nil
}

func (p *pipes) closeChild() {
	for i, h := range p.ends {
		if h != 0 {
			_ = windows.CloseHandle(h)
			p.ends[i] = 0
		}
	}
}

func (p *pipes) input() *os.File   { return p.in }
func (p *pipes) stdout() io.Reader { return p.outR }
func (p *pipes) stderr() io.Reader { return p.errR }
func (p *pipes) inputPath() string { return "" }
func (p *pipes) checkInput() error { return nil }

func (p *pipes) closeInput(*Process) error {
	p.inputClosed.Store(true)
	if err := p.in.Close(); err != nil && !errors.Is(err, os.ErrClosed) {
		return err
	}
	return nil
}

func (p *pipes) pending() bool {
	return peekPipe(p.out)+peekPipe(p.errOut) > 0 || p.held.Load() > 0
}

func (p *pipes) close() error {
	var first error
	for _, f := range []*os.File{p.in, p.out, p.errOut} {
		if f == nil {
			continue
		}
		if err := f.Close(); err != nil && !errors.Is(err, os.ErrClosed) && first == nil {
			first = err
		}
	}
	return first
}

// peekPipe counts the bytes waiting in a pipe; 0 when it cannot tell.
func peekPipe(f *os.File) int {
	rc, err := f.SyscallConn()
	if err != nil {
		return 0
	}
	var avail uint32
	_ = rc.Control(func(fd uintptr) {
		r, _, _ := procPeekNamedPipe.Call(fd, 0, 0, 0, uintptr(unsafe.Pointer(&avail)), 0)
		if r == 0 {
			avail = 0
		}
	})
	return int(avail)
}

// eofReader reads a pipe and reports its ends as io.EOF: the writer gone
// (ERROR_BROKEN_PIPE) or the server's end closed. held counts what a read
// returned until the caller comes back. Unlike on Unix it is raised only
// once the read has returned (a read here waits inside the system call),
// so [Process.Pending] can miss bytes for the instant between the two.
type eofReader struct {
	f      *os.File
	closed *atomic.Bool
	holder
}

func (r *eofReader) Read(b []byte) (int, error) {
	r.hold(false)
	n, err := r.f.Read(b)
	if n > 0 {
		r.hold(true)
		return n, nil
	}
	if err == nil || errors.Is(err, syscall.ERROR_BROKEN_PIPE) || errors.Is(err, os.ErrClosed) || r.closed.Load() {
		err = io.EOF
	}
	return 0, err
}
