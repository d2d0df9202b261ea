//go:build unix && !linux

package pty

import (
	"context"

	"golang.org/x/sys/unix"
)

// Members returns the group's leader as a stand-in while any member of
// process group pgid is alive; the process table is not read on this
// system, so descendants that left the group are not found.
func Members(pgid int, key, value string) []int {
	if unix.Kill(-pgid, 0) == nil {
		return []int{pgid}
	}
	return nil
}

// AwaitExit checks again after 100 ms, or returns when ctx is done.
func AwaitExit(ctx context.Context, pids []int) error {
	return sleepCtx(ctx, awaitPoll)
}

// TreeAlive reports whether any member of process group pgid is alive.
func TreeAlive(pgid int, key, value string) bool { return len(Members(pgid, key, value)) > 0 }

// The start of the command, which narrows Linux's scan, is not needed.
func treeAlive(pgid int, key, value string, _ uint64) bool { return TreeAlive(pgid, key, value) }
func members(pgid int, key, value string, _ uint64) []int  { return Members(pgid, key, value) }
