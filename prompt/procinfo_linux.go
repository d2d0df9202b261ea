package prompt

import (
	"bufio"
	"bytes"
	"os"
	"slices"
	"strconv"
	"strings"
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
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
		if err == nil {
			names = append(names, strings.TrimSpace(string(b)))
		}
	}
	return names
}

// maxSockets bounds the descriptors Listening looks at per process.
const maxSockets = 4096

// Listening returns the TCP ports that processes of session sid listen on,
// ascending: the sockets among their descriptors matched, by inode, to the
// LISTEN entries of /proc/net/tcp and tcp6 (of the session's own network
// namespace). A program that reads its terminal while it listens serves; it
// does not wait for input.
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
		socketInodes(pid, inodes)
	}
	if len(inodes) == 0 {
		return nil
	}
	var ports []int
	for _, f := range []string{"tcp", "tcp6"} {
		ports = listenPorts("/proc/"+strconv.Itoa(pids[0])+"/net/"+f, inodes, ports)
	}
	slices.Sort(ports)
	return slices.Compact(ports)
}

// socketInodes adds the inodes of pid's sockets to set.
func socketInodes(pid int, set map[uint64]bool) {
	dir := "/proc/" + strconv.Itoa(pid) + "/fd/"
	f, err := os.Open(dir)
	if err != nil {
		return
	}
	names, _ := f.Readdirnames(maxSockets)
	_ = f.Close()
	for _, n := range names {
		l, err := os.Readlink(dir + n)
		if err != nil {
			continue
		}
		if v, ok := strings.CutPrefix(l, "socket:["); ok {
			if ino, err := strconv.ParseUint(strings.TrimSuffix(v, "]"), 10, 64); err == nil {
				set[ino] = true
			}
		}
	}
}

// listenPorts adds to ports the local ports of the listening sockets in
// the /proc/net/tcp-format file path whose inode is in inodes.
func listenPorts(path string, inodes map[uint64]bool, ports []int) []int {
	b, err := os.ReadFile(path)
	if err != nil {
		return ports
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Scan() // the header
	for sc.Scan() {
		// sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
		f := strings.Fields(sc.Text())
		if len(f) < 10 || f[3] != "0A" { // 0A: TCP_LISTEN
			continue
		}
		ino, err := strconv.ParseUint(f[9], 10, 64)
		if err != nil || !inodes[ino] {
			continue
		}
		_, hexPort, ok := strings.Cut(f[1], ":")
		if !ok {
			continue
		}
		if port, err := strconv.ParseUint(hexPort, 16, 16); err == nil {
			ports = append(ports, int(port))
		}
	}
	return ports
}
