//go:build unix

package pty

import (
	"context"
	"runtime"

	"golang.org/x/sys/unix"
)

// Typeahead reports whether input written to the program waits unread in
// the terminal: typed ahead of the program's next read, as when several
// lines are written to a shell at once or a line is typed while a command
// runs. In canonical mode (a program reading lines) only whole lines
// count, as the kernel counts them; a shell at its prompt reads in raw
// mode, where every byte counts. A closed process or a failure to ask
// report false. In pipe mode it reports whether bytes written wait
// unread in the stdin pipe (Linux: the count is of the pipe, whichever end
// asks).
//
// A write that has returned is always counted: the terminal hands input to
// its line discipline asynchronously, and the poll below makes it do so
// first.
func (p *Process) Typeahead() bool {
	if p.closed.Load() {
		return false
	}
	switch io := p.io.(type) {
	case *terminal:
		return io.typeahead()
	case *pipes:
		return io.typeahead()
	}
	return false
}

// typeahead reports whether the stdin pipe holds bytes the program has not
// read. Every byte of a write that returned is in the pipe by then.
func (p *pipes) typeahead() bool {
	if p.inputClosed.Load() || runtime.GOOS != "linux" {
		return false
	}
	rc, err := p.in.SyscallConn()
	if err != nil {
		return false
	}
	var n int
	var opErr error
	if err := rc.Control(func(fd uintptr) { n, opErr = unix.IoctlGetInt(int(fd), ioctlUnread) }); err != nil {
		return false
	}
	return opErr == nil && n > 0
}

// typeahead asks the slave side, the only side that counts the input
// queue. The descriptor is opened for the question and closed at once (a
// slave kept open would hide the terminal's hang-up from the readers); it
// never becomes the server's controlling terminal.
func (t *terminal) typeahead() bool {
	fd, err := unix.Open(t.inputPath(), unix.O_RDONLY|unix.O_NOCTTY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	defer func() { _ = unix.Close(fd) }() // read-only, nothing to flush
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	for {
		if _, err := unix.Poll(fds, 0); err != unix.EINTR {
			break
		}
	}
	if fds[0].Revents&unix.POLLIN != 0 {
		return true
	}
	// The poll may ask for more than one byte (VMIN); the count does not.
	n, err := unix.IoctlGetInt(fd, ioctlUnread)
	return err == nil && n > 0
}

// discardUntypedLocked takes what the terminal holds unread out of it and,
// unless all of it was typed, writes only the typed part of it back, in
// order, so that only the replies nobody read are gone. The unread bytes
// are read through a descriptor of the slave side rather than counted: a
// read, unlike the count (TIOCINQ) or a poll that finds input already
// there, first lets the line discipline take in everything written. Called
// under the input's write lock, so nothing of the server's is written
// meanwhile.
func (p *Process) discardUntypedLocked(ctx context.Context) error {
	t, ok := p.io.(*terminal)
	if !ok || p.closed.Load() {
		return nil
	}
	fd, err := unix.Open(t.inputPath(), unix.O_RDONLY|unix.O_NOCTTY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil // gone: the write will say so
	}
	defer func() { _ = unix.Close(fd) }() // read-only, nothing to flush
	tio, err := unix.IoctlGetTermios(fd, ioctlGetTermios)
	if err != nil || tio.Lflag&unix.ICANON != 0 {
		return nil
	}
	var unread []byte
	buf := make([]byte, 1024)
	for len(unread) < 4*histCap {
		n, err := unix.Read(fd, buf)
		if n > 0 {
			unread = append(unread, buf[:n]...)
		}
		if err == unix.EINTR {
			continue
		}
		if err != nil || n <= 0 {
			break // EAGAIN: nothing more is unread
		}
	}
	if len(unread) == 0 {
		return nil
	}
	typed, all := p.written.typedTail(len(unread))
	if all {
		typed = unread
	}
	if len(typed) == 0 {
		return nil
	}
	return p.writeLocked(ctx, typed, false)
}
