package pty

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// Members returns the live processes of a command's tree: the members of
// process group pgid, and the processes whose environment holds key=value
// (descendants that left the group: setsid, daemons). Zombies are left out.
func Members(pgid int, key, value string) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	want := []byte(key + "=" + value)
	self := os.Getpid()
	var found []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		state, pgrp, err := readStatGroup(pid)
		if err != nil || state == 'Z' || state == 'X' {
			continue
		}
		if pgrp == pgid {
			found = append(found, pid)
			continue
		}
		if key == "" {
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil {
			continue
		}
		for kv := range bytes.SplitSeq(env, []byte{0}) {
			if bytes.Equal(kv, want) {
				found = append(found, pid)
				break
			}
		}
	}
	return found
}

// readStatGroup reads a process's state letter and process group.
func readStatGroup(pid int) (state byte, pgrp int, err error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, 0, err
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0, fmt.Errorf("parsing /proc/%d/stat", pid)
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 3 || len(f[0]) != 1 {
		return 0, 0, fmt.Errorf("parsing /proc/%d/stat", pid)
	}
	pgrp, err = strconv.Atoi(string(f[2]))
	return f[0][0], pgrp, err
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
