//go:build unix

package pty

import (
	"golang.org/x/sys/unix"
)

// Typeahead reports whether input written to the program waits unread in
// the terminal: typed ahead of the program's next read, as when several
// lines are written to a shell at once or a line is typed while a command
// runs. In canonical mode (a program reading lines) only whole lines
// count, as the kernel counts them; a shell at its prompt reads in raw
// mode, where every byte counts. Pipe mode, a closed process or a failure
// to ask report false.
//
// A write that has returned is always counted: the terminal hands input to
// its line discipline asynchronously, and the poll below makes it do so
// first.
func (p *Process) Typeahead() bool {
	t, ok := p.io.(*terminal)
	if !ok || p.closed.Load() {
		return false
	}
	return t.typeahead()
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
