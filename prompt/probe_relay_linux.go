// Relays: a program of the command's tree that runs another program under
// a terminal of its own (script, GNU screen, tmux, expect and unbuffer)
// holds that terminal's master side, and the program inside reads the
// inner terminal, not the command's. The probe follows them.

package prompt

import (
	"slices"
	"strconv"

	"golang.org/x/sys/unix"

	"github.com/yieldshell/yieldshell/internal/proc"
)

// maxRelayDepth bounds how many relays deep the probe follows: a shell in
// tmux in script is two.
const maxRelayDepth = 4

// maxDescriptors bounds the descriptors of one process looked at for a
// terminal's master side.
const maxDescriptors = 4096

// throughRelays returns the verdict of the terminals that processes of
// in's tree relay, when the tree waits on its input as a relay does (a
// poll or select on it among other descriptors, with or without a
// timeout, in the foreground or not: tmux's server reads the terminal its
// client handed over; or a read by a process that holds a master) and
// some relay holds an inner terminal with processes on it; r, the verdict
// on in's terminal, otherwise. Output the program inside wrote that has
// not reached the relay makes the answer Busy (not a timed wait). Of
// several inner terminals (a multiplexer's windows), one where something
// computes or sleeps makes the answer Busy: which window is shown cannot
// be told from /proc, and a wait is never reported that may not be one.
func (pr *Prober) throughRelays(in Input, r Probe, seen termSeen, o probeOpts) Probe {
	switch {
	case o.depth >= maxRelayDepth:
		return r
	case seen.watched:
	case r.Activity == Reading && len(proc.PtyMasters(r.Reader.Pid, maxDescriptors)) > 0:
	default:
		return r
	}
	inner := pr.innerTerminals(in, seen.leader, o.seen)
	if len(inner) == 0 {
		return r
	}
	o.depth++
	o.seen = append(slices.Clip(o.seen), in.Path)
	for _, t := range inner {
		o.seen = append(o.seen, t.Path)
	}
	var best Probe
	found := false
	for _, it := range inner {
		t := it.Input
		p := pr.inspect(t, o)
		if (p.Activity != Busy || p.Timed) && p.Activity != Unknown && (masterPending(it.holder, it.master) || typeahead(t.Path)) {
			// What the program inside wrote has not reached the relay
			// yet (its prompt is on its way, and the answer waits for
			// it), or what was written to it waits unread on its
			// terminal: the read seen is the one from before. A timed
			// wait seen now began before the line reached the log, and
			// would be taken for a timer that outlived it.
			return relayed(Probe{Activity: Busy}, t)
		}
		switch p.Activity {
		case Unknown:
			continue
		case Busy:
			return relayed(p, t)
		case Reading:
			if found && best.Activity == Reading {
				continue
			}
		case Polling:
			if found {
				continue
			}
		}
		best, found = relayed(p, t), true
	}
	if !found {
		return r
	}
	return best
}

// relayed marks p as seen through the relay of terminal t: one relay
// deeper when p was seen through relays already (echoing if t does), else
// with t's settings.
func relayed(p Probe, t Input) Probe {
	if p.Relay != nil {
		rl := *p.Relay
		echo, _, ok := termModes(t.Path, Task{})
		rl.Depth++
		rl.Echo, rl.ModesKnown = rl.Echo || echo, rl.ModesKnown && ok
		p.Relay = &rl
		return p
	}
	rl := Relay{Terminal: t.Path, Depth: 1, Input: t}
	rl.Echo, rl.Canonical, rl.ModesKnown = termModes(t.Path, p.Reader)
	p.Relay = &rl
	return p
}

// innerTerminals returns the terminals whose master side a process of in's
// tree holds (its foreground, the rest of its tree and the processes
// carrying its tag), other than in's own and those in seen, each with the
// processes that have it as their controlling terminal: the relay's
// descendants on it, and its foreground group. One without any is left
// out.
func (pr *Prober) innerTerminals(in Input, leader int, seen []string) []innerTerm {
	holders := append([]int{leader}, pr.members(in, leader, tableAge)...)
	holders = append(holders, pr.outside(in, leader)...)
	var out []innerTerm
	for _, pid := range holders {
		for _, m := range proc.PtyMasters(pid, maxDescriptors) {
			path := "/dev/pts/" + strconv.Itoa(m.Index)
			if path == in.Path || slices.Contains(seen, path) || slices.ContainsFunc(out, func(t innerTerm) bool { return t.Path == path }) {
				continue
			}
			if t, ok := pr.terminalOf(pid, path, in.Tag); ok {
				out = append(out, innerTerm{Input: t, holder: pid, master: m.FD})
			}
		}
	}
	return out
}

// innerTerm is a terminal a relay holds: the Input that names it, and the
// relay's process and descriptor of its master.
type innerTerm struct {
	Input
	holder, master int
}

// masterPending reports whether the master side of a relayed terminal
// (descriptor fd of process pid) has output for the relay to read: the
// kernel queues a terminal's output for its master asynchronously, and a
// poll of the master takes it in, so a copy of the relay's descriptor is
// polled without waiting. A copy that cannot be had (an older kernel,
// no right to it) says nothing is pending.
func masterPending(pid, fd int) bool {
	pidfd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return false
	}
	defer unix.Close(pidfd)
	m, err := unix.PidfdGetfd(pidfd, fd, 0)
	if err != nil {
		return false
	}
	defer unix.Close(m)
	fds := []unix.PollFd{{Fd: int32(m), Events: unix.POLLIN}}
	for {
		_, err := unix.Poll(fds, 0)
		if err != unix.EINTR {
			return err == nil && fds[0].Revents&unix.POLLIN != 0
		}
	}
}

// terminalOf finds, among the descendants of relay, the session whose
// controlling terminal is path, and that terminal's foreground group.
func (pr *Prober) terminalOf(relay int, path, tag string) (Input, bool) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return Input{}, false
	}
	nr := ttyNr(st.Rdev)
	pr.mu.Lock()
	defer pr.mu.Unlock()
	pr.indexLocked()
	queue := slices.Clone(pr.kids[relay])
	for n := 0; len(queue) > 0 && n < maxOutside; n++ {
		e := pr.byPid[queue[0]]
		queue = queue[1:]
		if e.ttyNr == nr {
			t := Input{Session: e.sid, Path: path, Tag: tag}
			if e.tpgid > 0 {
				t.Pgrp = e.tpgid
			}
			return t, true
		}
		queue = append(queue, pr.kids[e.pid]...)
	}
	return Input{}, false
}

// ttyNr is a device number as /proc/PID/stat's tty_nr field encodes it:
// the minor's low byte, the major, then the minor's other bits.
func ttyNr(dev uint64) int {
	major, minor := unix.Major(dev), unix.Minor(dev)
	return int(minor&0xff | major<<8 | (minor&^0xff)<<12)
}

// typeahead reports whether input waits unread on terminal path: polled
// first, which takes in what its master was given (the kernel hands it
// over from a work queue), then counted.
func typeahead(path string) bool {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_NOCTTY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	defer unix.Close(fd)
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	for {
		if _, err := unix.Poll(fds, 0); err != unix.EINTR {
			break
		}
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCINQ)
	return fds[0].Revents&unix.POLLIN != 0 || err == nil && n > 0
}

// termModes reads whether terminal path echoes and reads lines: through a
// descriptor of its own, opened without making it the controlling
// terminal and without waiting for a carrier, or, when that is refused,
// through the reader's standard input.
func termModes(path string, reader Task) (echo, canonical, ok bool) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_NOCTTY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil && reader.Pid != 0 {
		fd, err = unix.Open(proc.FDPath(reader.Pid, 0), unix.O_RDONLY|unix.O_NOCTTY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	}
	if err != nil {
		return false, false, false
	}
	defer unix.Close(fd)
	t, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	if err != nil {
		return false, false, false
	}
	return t.Lflag&unix.ECHO != 0, t.Lflag&unix.ICANON != 0, true
}
