// Linux-only, as the probe it extends (probe_linux.go): it walks the
// probe's copy of the process table. procinfo_other.go says what is done
// without it; the /proc reading itself is package proc.

package prompt

import (
	"slices"

	"github.com/yieldshell/yieldshell/internal/proc"
)

// Programs returns the command names (as /proc/PID/comm has them) of the
// processes that could read in's input: the terminal's foreground group,
// or in pipe mode the session. A pager or an editor is told by its name
// even when a shell or git is the group's leader (git log, git commit).
func (pr *Prober) Programs(in Input) []string {
	leader := in.Pgrp
	if leader == 0 {
		leader = in.Session
	}
	var names []string
	for _, pid := range append([]int{leader}, pr.members(in, leader, tableAge)...) {
		if name, err := proc.ReadComm(pid); err == nil {
			names = append(names, name)
		}
	}
	return names
}

// maxSockets bounds the descriptors Listening looks at per process.
const maxSockets = 4096

// Listening returns the TCP ports that processes of session sid listen on,
// ascending: the sockets among their descriptors matched, by inode, to the
// listening sockets of the session's own network namespace. A program
// that reads its terminal while it listens serves; it does not wait for
// input.
func (pr *Prober) Listening(sid int) []int {
	pids := pr.members(Input{Session: sid}, 0, tableAge)
	if !slices.Contains(pids, sid) {
		// The copy of the table predates the session (a process that
		// started a moment ago): read it again.
		pids = pr.members(Input{Session: sid}, 0, 0)
	}
	if len(pids) == 0 {
		return nil
	}
	inodes := map[uint64]bool{}
	for _, pid := range pids {
		proc.SocketInodes(pid, maxSockets, inodes)
	}
	if len(inodes) == 0 {
		return nil
	}
	var ports []int
	for ino, port := range proc.ListeningTCP(pids[0]) {
		if inodes[ino] {
			ports = append(ports, port)
		}
	}
	slices.Sort(ports)
	return slices.Compact(ports)
}
