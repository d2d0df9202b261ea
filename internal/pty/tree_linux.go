package pty

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// TreeAlive reports whether a command's tree still has a live process: a
// member of process group pgid, or a process whose environment holds
// key=value (a descendant that left the group). It is what every command's
// end asks, so it is cheap: as the child subreaper, the server is the
// parent of every escaped descendant whose own parent is gone, and one
// whose parent lives keeps the group (or another such descendant) alive,
// so only the group and the server's children need looking at.
func TreeAlive(pgid int, key, value string) bool {
	if unix.Kill(-pgid, 0) == nil {
		// A member that has just died answers too until it is reaped:
		// only a live one counts.
		return len(Members(pgid, key, value)) > 0
	}
	if !subreaper() {
		return len(Members(pgid, key, value)) > 0
	}
	want := []byte(key + "=" + value)
	var env envReader
	for _, pid := range children() {
		st, err := readProcStat(pid)
		if err != nil || st.gone() {
			continue
		}
		if holds(env.read(pid), want) {
			return true
		}
	}
	return false
}

// children lists this process's children (every thread's).
func children() []int {
	tasks, _ := os.ReadDir("/proc/self/task")
	var pids []int
	for _, t := range tasks {
		b, err := os.ReadFile("/proc/self/task/" + t.Name() + "/children")
		if err != nil {
			continue
		}
		for f := range bytes.FieldsSeq(b) {
			if pid, err := strconv.Atoi(string(f)); err == nil {
				pids = append(pids, pid)
			}
		}
	}
	return pids
}

// execWindow bounds how long an envReader waits for a process in the
// middle of execve. The window is a few milliseconds on an idle machine and
// was seen at 70 ms on two busy cores; a second is far beyond it and still
// short enough that a process stuck in exec (a binary on a hung network
// mount) does not hold a command's end for long.
const execWindow = time.Second

// maxEnviron bounds an environment read: the kernel's own limit on
// arguments and environment together is a quarter of the stack limit,
// 2 MiB by default.
const maxEnviron = 8 << 20

// read returns process pid's environment (NUL-separated), or nil if the
// process is gone or cannot be read. The result is valid until the next
// read.
//
// An exec replaces the environment under the reader's feet, so:
//   - it is read in one read(2), which sees one image whole (a read in
//     parts can end early when the image it began in is gone, dropping
//     the variables at the end, the tag among them);
//   - once the new image's memory is in place and until its environment
//     is laid out, the file reads empty. /proc/PID/stat tells that apart
//     from a process with no environment at all: the environment's and
//     the code's addresses are zero until the exec is done. An exec is
//     waited out, for execWindow at most;
//   - a process in exit(2) has no memory left to read before it is a
//     zombie: that is waited out too, so it is not taken for a process
//     without the tag while it still holds what it had open.
func (r *envReader) read(pid int) []byte {
	path := "/proc/" + strconv.Itoa(pid) + "/environ"
	deadline := time.Now().Add(execWindow)
	if len(r.buf) == 0 {
		r.buf = make([]byte, 16<<10)
	}
	for pause := 100 * time.Microsecond; ; pause = min(2*pause, 5*time.Millisecond) {
		n, err := readOnce(path, r.buf)
		switch {
		case errors.Is(err, unix.ESRCH):
			// No memory to read: a kernel thread, or a process in exit(2)
			// that released its memory and is not a zombie yet (its
			// state still reads R); the latter is waited out as an exec is.
		case err != nil:
			return nil
		case n == len(r.buf) && n < maxEnviron:
			r.buf = make([]byte, 2*len(r.buf)) // there may be more
			continue
		case n > 0:
			return r.buf[:n]
		}
		noMemory := err != nil
		st, err := readProcStat(pid)
		if err != nil || st.gone() || noMemory && !st.exiting() || st.execDone() && st.envEnd == st.envStart || time.Now().After(deadline) {
			return nil // gone, a kernel thread, no environment at all, or stuck
		}
		// In an exec or an exit, or one ended between the reads: look again.
		time.Sleep(pause)
	}
}

// readOnce opens path and reads it with one read(2).
func readOnce(path string, buf []byte) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	n, err := f.Read(buf)
	if err == io.EOF {
		err = nil
	}
	return n, err
}

// holds reports whether a NUL-separated environment holds kv.
func holds(env, kv []byte) bool {
	for e := range bytes.SplitSeq(env, []byte{0}) {
		if bytes.Equal(e, kv) {
			return true
		}
	}
	return false
}

// Members returns the live processes of a command's tree: the members of
// process group pgid, and the processes whose environment holds key=value
// (descendants that left the group: setsid, daemons). Zombies are left out.
//
// When the server is the child subreaper, every such descendant is also
// one of the server's, so only their environments are read: the scan
// costs one small read per process on the machine.
func Members(pgid int, key, value string) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	self := os.Getpid()
	var found, others []int
	parent := make(map[int]int, len(entries))
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		st, err := readProcStat(pid)
		if err != nil {
			continue
		}
		parent[pid] = st.ppid // a zombie's too: it links its children to us
		switch {
		case st.gone():
		case st.pgrp == pgid:
			found = append(found, pid)
		case key != "":
			others = append(others, pid)
		}
	}
	if len(others) == 0 {
		return found
	}
	isOurs := func(int) bool { return true }
	if subreaper() {
		isOurs = func(pid int) bool { return descends(parent, self, pid) }
	}
	want := []byte(key + "=" + value)
	var env envReader
	for _, pid := range others {
		if isOurs(pid) && holds(env.read(pid), want) {
			found = append(found, pid)
		}
	}
	return found
}

// descends reports whether process pid may descend from process self,
// following parent: a snapshot of the process table, read one process at a
// time while processes start and end. A chain that reaches init or the
// kernel is not self's; one that breaks at a process missing from the
// snapshot (it ended, or started, while the table was read) may be, and
// the caller's look at the environment decides.
func descends(parent map[int]int, self, pid int) bool {
	for range 64 { // deeper than any real tree; ends cycles from pid reuse
		pp, ok := parent[pid]
		switch {
		case !ok || pp == self:
			return true
		case pp <= 1:
			return false
		}
		pid = pp
	}
	return false
}

// subreaper reports whether this process is a child subreaper.
func subreaper() bool {
	var v int32
	err := unix.Prctl(unix.PR_GET_CHILD_SUBREAPER, uintptr(unsafe.Pointer(&v)), 0, 0, 0)
	return err == nil && v != 0
}

// AwaitExit blocks until one of pids exits (or is already gone), or ctx is
// done. It holds a pidfd per process, so it works for processes that are not
// the server's children and costs nothing while it waits. Where pidfds are
// not available it checks every 100 ms.
func AwaitExit(ctx context.Context, pids []int) error {
	fds := make([]unix.PollFd, 0, len(pids)+1)
	defer func() {
		for _, f := range fds {
			_ = unix.Close(int(f.Fd))
		}
	}()
	// The first descriptor is woken when ctx ends.
	efd, err := unix.Eventfd(0, unix.EFD_CLOEXEC)
	if err != nil {
		return sleepCtx(ctx, awaitPoll)
	}
	fds = append(fds, unix.PollFd{Fd: int32(efd), Events: unix.POLLIN})
	for _, pid := range pids {
		fd, err := unix.PidfdOpen(pid, 0)
		if errors.Is(err, unix.ESRCH) {
			return nil // already gone
		}
		if err != nil {
			return sleepCtx(ctx, awaitPoll)
		}
		fds = append(fds, unix.PollFd{Fd: int32(fd), Events: unix.POLLIN})
	}
	woke := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		_, _ = unix.Write(efd, []byte{1, 0, 0, 0, 0, 0, 0, 0})
		close(woke)
	})
	defer func() {
		if !stop() {
			// The wake-up has begun: the descriptor must stay open until
			// it has written.
			<-woke
		}
	}()
	for {
		_, err := unix.Poll(fds, -1)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return fmt.Errorf("waiting for processes to exit: %w", err)
		}
		if fds[0].Revents != 0 {
			return ctx.Err()
		}
		return nil
	}
}
