package pty

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"

	"github.com/yieldshell/yieldshell/internal/proc"
)

// TreeAlive reports whether a command's tree still has a live process: a
// member of process group pgid, or a process whose environment holds
// key=value (a descendant that left the group). It is what every command's
// end asks, so it is cheap: as the child subreaper, the server is the
// parent of every escaped descendant whose own parent is gone, and one
// whose parent lives keeps the group (or another such descendant) alive,
// so only the group and the server's children need looking at.
func TreeAlive(pgid int, key, value string) bool { return treeAlive(pgid, key, value, 0) }

// treeAlive is TreeAlive for a command forked at boot tick born (see
// [members]).
func treeAlive(pgid int, key, value string, born uint64) bool {
	if unix.Kill(-pgid, 0) == nil {
		// A member that has just died answers too until it is reaped:
		// only a live one counts.
		return len(members(pgid, key, value, born)) > 0
	}
	if !proc.Subreaper() {
		return len(members(pgid, key, value, born)) > 0
	}
	if !hasChildren() {
		return false // nothing escaped the group to be reparented to us
	}
	want := []byte(key + "=" + value)
	var env proc.EnvReader
	for _, pid := range proc.ChildrenOf(os.Getpid()) {
		st, err := proc.ReadStat(pid)
		if err != nil || st.Gone() {
			continue
		}
		if holds(env.Read(pid), want) {
			return true
		}
	}
	return false
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
func Members(pgid int, key, value string) []int { return members(pgid, key, value, 0) }

// members is Members for a command forked at boot tick born
// ([bootTicks]; 0: unknown): a descendant cannot have started before
// its command, so older processes' environments are not read. That is
// what keeps the scan cheap where the server is not the child subreaper
// (one CLI call; tests) and every other process's environment would
// be read.
func members(pgid int, key, value string, born uint64) []int {
	pids, err := proc.Pids()
	if err != nil {
		return nil
	}
	self := os.Getpid()
	var found, others []int
	parent := make(map[int]int, len(pids))
	for _, pid := range pids {
		if pid == self {
			continue
		}
		st, err := proc.ReadStat(pid)
		if err != nil {
			continue
		}
		parent[pid] = st.PPid // a zombie's too: it links its children to us
		switch {
		case st.Gone():
		case st.Pgrp == pgid:
			found = append(found, pid)
		case key != "" && st.Start >= born:
			others = append(others, pid)
		}
	}
	if len(others) == 0 {
		return found
	}
	isOurs := func(int) bool { return true }
	if proc.Subreaper() {
		isOurs = func(pid int) bool { return descends(parent, self, pid) }
	}
	want := []byte(key + "=" + value)
	var env proc.EnvReader
	for _, pid := range others {
		if isOurs(pid) && holds(env.Read(pid), want) {
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

// hasChildren reports whether this process has a child, live or not yet
// reaped. It is one system call where listing the children (a /proc file
// per thread of the server) costs a few hundred microseconds, on the path
// of every command's end: most ends find no child at all. It neither waits
// nor reaps (WNOHANG, WNOWAIT), so the reaper sees every exit as before.
func hasChildren() bool {
	var info unix.Siginfo
	err := unix.Waitid(unix.P_ALL, 0, &info, unix.WEXITED|unix.WNOHANG|unix.WNOWAIT, nil)
	return !errors.Is(err, unix.ECHILD)
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
