package prompt

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// syscallClass is what a thread blocked in a system call is doing.
type syscallClass int

const (
	scOther   syscallClass = iota // busy with something else (a timer, a socket)
	scNeutral                     // waiting for a child or a lock: says nothing
	scRead                        // read(fd, ...)
	scSelect                      // select or pselect6 (nfds in arg0)
	scPoll                        // poll, ppoll, epoll: descriptors unknown
)

// classify sorts system call nr.
func classify(nr int64) syscallClass {
	switch nr {
	case unix.SYS_READ, unix.SYS_READV, unix.SYS_PREAD64:
		return scRead
	case unix.SYS_PSELECT6:
		return scSelect
	case unix.SYS_PPOLL, unix.SYS_EPOLL_PWAIT:
		return scPoll
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
	dir, err := os.Open("/proc")
	if err != nil {
		return dst
	}
	names, _ := dir.Readdirnames(-1)
	_ = dir.Close()
	for _, name := range names {
		pid, err := strconv.Atoi(name)
		if err != nil {
			continue
		}
		if pgrp, sid, ok := groupOf(pid); ok {
			dst = append(dst, procEntry{pid, pgrp, sid})
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
	polling bool
	reader  *Task
}

func (a *probeAcc) conclusive() bool { return a.running }

// waitsOnOthers reports whether every thread seen waits on a child or a
// lock: the process is a parent waiting for the ones that do the work.
func (a *probeAcc) waitsOnOthers() bool {
	return a.seen && !a.running && !a.other && !a.polling && a.reader == nil
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
	case a.polling && !a.other:
		return Probe{Activity: Polling}
	}
	return Probe{Activity: Busy}
}

func (a *probeAcc) addProcess(pid int, input string) {
	base := "/proc/" + strconv.Itoa(pid)
	tasks, err := os.ReadDir(base + "/task")
	if err != nil {
		return
	}
	for _, t := range tasks {
		tid, err := strconv.Atoi(t.Name())
		if err != nil {
			continue
		}
		a.addTask(base, Task{Pid: pid, Tid: tid}, input)
	}
}

func (a *probeAcc) addTask(base string, t Task, input string) {
	task := base + "/task/" + strconv.Itoa(t.Tid)
	b, err := os.ReadFile(task + "/syscall")
	if err != nil {
		// Gone, a zombie, or another user's (a setuid program such as
		// sudo): only the last leaves the question open.
		a.denied = a.denied || os.IsPermission(err)
		return
	}
	a.seen = true
	f := strings.Fields(string(bytes.TrimSpace(b)))
	nr, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil || nr < 0 || len(f) < 2 {
		// "running" on a CPU, or "-1": preempted in user space. Either
		// way it computes.
		a.running = true
		return
	}
	arg0, err := strconv.ParseUint(strings.TrimPrefix(f[1], "0x"), 16, 64)
	if err != nil {
		a.other = true
		return
	}
	class := classify(nr)
	if class >= scRead && !sleeping(task) {
		// In the call but not asleep in it: its input is there and it is
		// about to take it (or the state changed under us).
		a.running = true
		return
	}
	switch class {
	case scNeutral:
	case scRead:
		if isInput(base, int(arg0), input) {
			a.reader = &t
		} else {
			a.other = true // a pipe, a file, a socket: not the input
		}
	case scSelect:
		// One descriptor, and it is ours: readline and friends.
		if arg0 == 1 && isInput(base, 0, input) {
			a.reader = &t
		} else {
			a.polling = true
		}
	case scPoll:
		a.polling = true
	default:
		a.other = true
	}
}

// isInput reports whether descriptor fd of the process at base is the input.
func isInput(base string, fd int, input string) bool {
	link, err := os.Readlink(base + "/fd/" + strconv.Itoa(fd))
	if err != nil {
		return false
	}
	return link == input || link == "/dev/tty" && strings.HasPrefix(input, "/dev/")
}

// sleeping reports whether the thread at task is in interruptible sleep.
func sleeping(task string) bool {
	b, err := os.ReadFile(task + "/stat")
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(b, ')')
	return i >= 0 && i+2 < len(b) && b[i+2] == 'S'
}

// groupOf returns the process group and session of pid from
// /proc/pid/stat.
func groupOf(pid int) (pgrp, sid int, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, false
	}
	// The command name (field 2) may hold spaces and parentheses: fields
	// are counted after its closing parenthesis.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0, false
	}
	f := strings.Fields(string(b[i+1:]))
	// f[0] state, f[1] ppid, f[2] pgrp, f[3] session.
	if len(f) < 4 {
		return 0, 0, false
	}
	pgrp, err1 := strconv.Atoi(f[2])
	sid, err2 := strconv.Atoi(f[3])
	return pgrp, sid, err1 == nil && err2 == nil
}

// Switches returns how many times a thread has given up the CPU to wait.
// A reader whose count changed has woken up (taken input) and waited again.
func Switches(t Task) (uint64, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(t.Pid) + "/task/" + strconv.Itoa(t.Tid) + "/status")
	if err != nil {
		return 0, false
	}
	_, rest, ok := bytes.Cut(b, []byte("\nvoluntary_ctxt_switches:"))
	if !ok {
		return 0, false
	}
	line, _, _ := bytes.Cut(rest, []byte("\n"))
	n, err := strconv.ParseUint(string(bytes.TrimSpace(line)), 10, 64)
	return n, err == nil
}
