// The kernel probe is Linux-only: it reads which system call a thread is
// in, and its arguments, which no other system offers (probe_other.go says
// what is done without it). It stays beside the heuristics it feeds; the
// /proc reading itself is package proc.

package prompt

import (
	"encoding/binary"
	"errors"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/yieldshell/yieldshell/internal/proc"
)

// syscallClass is what a thread blocked in a system call is doing.
type syscallClass int

const (
	scOther   syscallClass = iota // busy with something else (a timer, a socket)
	scNeutral                     // waiting for a child or a lock: says nothing
	scRead                        // read(fd, ...)
	scSelect                      // select or pselect6 (nfds, readfds, ...)
	scPoll                        // poll or ppoll (fds, nfds, ...)
	scEpoll                       // epoll_wait, epoll_pwait, epoll_pwait2 (epfd, ...)
)

// classify sorts system call nr.
func classify(nr int64) syscallClass {
	switch nr {
	case unix.SYS_READ, unix.SYS_READV, unix.SYS_PREAD64:
		return scRead
	case unix.SYS_PSELECT6:
		return scSelect
	case unix.SYS_PPOLL:
		return scPoll
	case unix.SYS_EPOLL_PWAIT, unix.SYS_EPOLL_PWAIT2:
		return scEpoll
	case unix.SYS_WAIT4, unix.SYS_WAITID, unix.SYS_FUTEX:
		return scNeutral
	}
	// Calls that only some architectures have (amd64: select, poll,
	// epoll_wait).
	return archClass(nr)
}

// tableAge is how long a Prober reuses its copy of the process table.
const tableAge = 100 * time.Millisecond

// Prober asks the kernel, through /proc, what programs are doing. It keeps
// a copy of the machine's process table (who is in which group and
// session) for up to tableAge, so that probing many programs at once (ps)
// reads the table once. It is safe for concurrent use.
type Prober struct {
	mu    sync.Mutex
	at    time.Time
	procs []procEntry
}

type procEntry struct{ pid, pgrp, sid int }

// NewProber returns a Prober.
func NewProber() *Prober { return &Prober{} }

// Inspect asks the kernel what the processes that could read in's input
// are doing: the foreground process group of the terminal, or in pipe mode
// every process of the session. Every thread is looked at, since the one
// reading is often not the main one. A thread running on a CPU makes the
// answer Busy: a program that computes is not waiting.
func (pr *Prober) Inspect(in Input) Probe {
	// The group leader is the reader in most cases (a shell's read builtin,
	// input(), getpass); only look further when it is not.
	leader := in.Pgrp
	if leader == 0 {
		leader = in.Session
	}
	var acc probeAcc
	if in.Only != 0 {
		acc.addProcess(in.Only, in.Path)
		return acc.result()
	}
	acc.addProcess(leader, in.Path)
	if acc.conclusive() {
		return acc.result()
	}
	members := pr.members(in, leader, tableAge)
	if len(members) == 0 && acc.waitsOnOthers() {
		// The leader waits on processes the copy of the table may predate
		// (a shell that has just started a command): read it again.
		members = pr.members(in, leader, 0)
	}
	for _, pid := range members {
		acc.addProcess(pid, in.Path)
		if acc.conclusive() {
			break
		}
	}
	return acc.result()
}

// members returns the pids of in's group (or session) other than leader,
// from the copy of the process table, read anew unless it is at most
// maxAge old (0: always).
func (pr *Prober) members(in Input, leader int, maxAge time.Duration) []int {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	if maxAge == 0 || time.Since(pr.at) > maxAge {
		pr.procs = readTable(pr.procs[:0])
		pr.at = time.Now()
	}
	var out []int
	for _, e := range pr.procs {
		if e.pid == leader || in.Pgrp != 0 && e.pgrp != in.Pgrp || in.Pgrp == 0 && e.sid != in.Session {
			continue
		}
		out = append(out, e.pid)
	}
	return out
}

// readTable lists every process with its group and session.
func readTable(dst []procEntry) []procEntry {
	pids, _ := proc.Pids()
	for _, pid := range pids {
		if st, err := proc.ReadStat(pid); err == nil {
			dst = append(dst, procEntry{pid, st.Pgrp, st.Session})
		}
	}
	return dst
}

// probeAcc sums up the threads seen so far.
type probeAcc struct {
	seen    bool // at least one thread could be read
	denied  bool // a thread could not be read: another user's (sudo)
	running bool
	other   bool
	polling bool // in a poll whose descriptors could not be read
	// pollsInput: in a poll, epoll or select that includes the input.
	pollsInput bool
	reader     *Task
}

func (a *probeAcc) conclusive() bool { return a.running }

// waitsOnOthers reports whether every thread seen waits on a child or a
// lock: the process is a parent waiting for the ones that do the work.
func (a *probeAcc) waitsOnOthers() bool {
	return a.seen && !a.running && !a.other && !a.polling && !a.pollsInput && a.reader == nil
}

func (a *probeAcc) result() Probe {
	switch {
	case !a.seen && a.denied:
		return Probe{Activity: Unknown}
	case !a.seen:
		return Probe{Activity: Busy} // nothing left that could read
	case a.running:
		return Probe{Activity: Busy}
	case a.reader != nil:
		return Probe{Activity: Reading, Reader: *a.reader}
	case a.pollsInput, a.polling && !a.other:
		return Probe{Activity: Polling}
	}
	return Probe{Activity: Busy}
}

func (a *probeAcc) addProcess(pid int, input string) {
	tids, err := proc.Tasks(pid)
	if err != nil {
		return
	}
	for _, tid := range tids {
		a.addTask(Task{Pid: pid, Tid: tid}, input)
	}
}

func (a *probeAcc) addTask(t Task, input string) {
	sc, err := proc.ReadSyscall(t.Pid, t.Tid)
	switch {
	case errors.Is(err, proc.ErrFormat):
		a.seen, a.other = true, true
		return
	case err != nil:
		// Gone, a zombie, or another user's (a setuid program such as
		// sudo): only the last leaves the question open.
		a.denied = a.denied || os.IsPermission(err)
		return
	}
	a.seen = true
	nr, args := sc.Nr, sc.Args
	switch {
	case nr < 0:
		// "running" on a CPU, or "-1": preempted in user space. Either
		// way it computes.
		a.running = true
		return
	}
	class := classify(nr)
	if class >= scRead && !sleeping(t) {
		// In the call but not asleep in it: its input is there and it is
		// about to take it (or the state changed under us).
		a.running = true
		return
	}
	switch class {
	case scNeutral:
	case scRead:
		if isInput(t.Pid, int(args[0]), input) {
			a.reader = &t
		} else {
			a.other = true // a pipe, a file, a socket: not the input
		}
	case scSelect, scPoll, scEpoll:
		w := waitsOn(t.Pid, class, args, input)
		switch {
		case w == waitOnlyInput && class != scEpoll:
			// One descriptor, and it is ours: readline (select), htop
			// and ncurses' timed reads (poll). An epoll set holding
			// only the input is rare; an event loop's holds more.
			a.reader = &t
		case w == waitNotInput:
			// A timer, a socket, a child's pipe: whatever it waits
			// for, typing is not it.
			a.other = true
		case w == waitUnknown:
			a.polling = true
		default:
			a.pollsInput = true
		}
	default:
		a.other = true
	}
}

// wait says what a poll, epoll or select wait includes.
type wait int

const (
	waitUnknown   wait = iota // its descriptors could not be read
	waitNotInput              // the input is not among them
	waitWithInput             // the input and others
	waitOnlyInput             // the input alone
)

// maxWatched bounds the descriptors of one wait that are looked at.
const maxWatched = 4096

// waitsOn reads which descriptors a thread of process pid
// waits on for reading: an epoll instance's from /proc (its fdinfo lists
// them), a poll's pollfd array and a select's read set from the process's
// memory (ours to read: it is our child, running as us).
func waitsOn(pid int, class syscallClass, args [3]uint64, input string) wait {
	var fds []int
	switch class {
	case scEpoll:
		return epollWaitsOn(pid, int(args[0]), input, 0)
	case scPoll:
		n := min(int(args[1]), maxWatched)
		b, err := proc.ReadMem(pid, uintptr(args[0]), n*8)
		if err != nil {
			return waitUnknown
		}
		fds = pollReadFds(b)
	case scSelect:
		n := min(int(args[0]), maxWatched)
		if args[1] == 0 {
			return waitNotInput // no read set
		}
		b, err := proc.ReadMem(pid, uintptr(args[1]), (n+63)/64*8)
		if err != nil {
			return waitUnknown
		}
		fds = selectReadFds(b, n)
	}
	return matchInput(pid, fds, input)
}

// matchInput says whether fds, the descriptors a wait reads, hold the input.
func matchInput(pid int, fds []int, input string) wait {
	found := false
	for _, fd := range fds {
		if isInput(pid, fd, input) {
			found = true
		}
	}
	switch {
	case !found:
		return waitNotInput
	case len(fds) == 1:
		return waitOnlyInput
	}
	return waitWithInput
}

// epollWaitsOn reads the descriptors epoll instance epfd watches for
// reading; an instance inside it (depth 1) counts with its own.
func epollWaitsOn(pid int, epfd int, input string, depth int) wait {
	b, err := proc.ReadFDInfo(pid, epfd)
	if err != nil {
		return waitUnknown
	}
	fds := epollReadFds(b)
	w := matchInput(pid, fds, input)
	if w != waitNotInput || depth > 0 {
		return w
	}
	for _, fd := range fds {
		if link, err := proc.ReadFDLink(pid, fd); err == nil && link == "anon_inode:[eventpoll]" {
			if epollWaitsOn(pid, fd, input, depth+1) != waitNotInput {
				return waitWithInput
			}
		}
	}
	return waitNotInput
}

// epollReadFds parses an epoll instance's fdinfo: one line per watched
// descriptor, "tfd: N events: HEX data: ...", and returns those watched
// for input (EPOLLIN or EPOLLPRI).
func epollReadFds(fdinfo []byte) []int {
	var fds []int
	for line := range strings.Lines(string(fdinfo)) {
		f := strings.Fields(line)
		if len(f) < 4 || f[0] != "tfd:" || f[2] != "events:" {
			continue
		}
		fd, err1 := strconv.Atoi(f[1])
		ev, err2 := strconv.ParseUint(f[3], 16, 32)
		if err1 == nil && err2 == nil && ev&(unix.EPOLLIN|unix.EPOLLPRI) != 0 {
			fds = append(fds, fd)
		}
	}
	return fds
}

// pollRdNorm is POLLRDNORM, which x/sys does not name.
const pollRdNorm = 0x40

// pollReadFds returns the descriptors of a pollfd array (int fd; short
// events; short revents) polled for input; negative ones are ignored, as
// poll does.
func pollReadFds(b []byte) []int {
	var fds []int
	for i := 0; i+8 <= len(b); i += 8 {
		fd := int32(binary.NativeEndian.Uint32(b[i:]))
		ev := binary.NativeEndian.Uint16(b[i+4:])
		if fd >= 0 && ev&(unix.POLLIN|unix.POLLPRI|pollRdNorm) != 0 {
			fds = append(fds, int(fd))
		}
	}
	return fds
}

// selectReadFds returns the descriptors below nfds set in a select read set
// (an array of native longs, bit fd%64 of long fd/64).
func selectReadFds(b []byte, nfds int) []int {
	var fds []int
	for fd := 0; fd < nfds && fd/64*8+8 <= len(b); fd++ {
		if binary.NativeEndian.Uint64(b[fd/64*8:])&(1<<(fd%64)) != 0 {
			fds = append(fds, fd)
		}
	}
	return fds
}

// isInput reports whether descriptor fd of process pid is the input.
func isInput(pid int, fd int, input string) bool {
	link, err := proc.ReadFDLink(pid, fd)
	if err != nil {
		return false
	}
	return link == input || link == "/dev/tty" && strings.HasPrefix(input, "/dev/")
}

// sleeping reports whether thread t is in interruptible sleep.
func sleeping(t Task) bool {
	st, err := proc.ReadTaskStat(t.Pid, t.Tid)
	return err == nil && st.State == 'S'
}

// Switches returns how many times a thread has given up the CPU to wait.
// A reader whose count changed has woken up (taken input) and waited again.
func Switches(t Task) (uint64, bool) {
	st, err := proc.ReadTaskStatus(t.Pid, t.Tid)
	return st.VoluntarySwitches, err == nil
}
