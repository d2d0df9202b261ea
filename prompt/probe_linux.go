// The kernel probe is Linux-only: it reads which system call a thread is
// in, and its arguments, which no other system offers (probe_other.go says
// what is done without it). It stays beside the heuristics it feeds; the
// /proc reading itself is package proc.

package prompt

import (
	"bytes"
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
// a copy of the process table (who is in which group and session, and
// whose child; see [readTable]) for up to tableAge, so that probing many
// programs at once (ps) reads the table once, and which processes carry a
// command's tag. It is safe for concurrent use.
type Prober struct {
	mu    sync.Mutex
	at    time.Time
	procs []procEntry
	// tagged caches, per process, whether its environment holds the tag
	// it was asked about (an environment is read once per process).
	tagged map[tagKey]bool
	env    proc.EnvReader
	// kids and byPid index the copy of the table (nil until outside
	// needs them after a refresh).
	kids  map[int][]int
	byPid map[int]procEntry
}

type procEntry struct {
	pid, ppid, pgrp, sid int
	ttyNr, tpgid         int // the controlling terminal and its foreground group
	start                uint64
}

// tagKey names a process (its pid and start, against reuse) and a tag.
type tagKey struct {
	pid   int
	start uint64
	tag   string
}

// NewProber returns a Prober.
func NewProber() *Prober { return &Prober{} }

// probeOpts says what Inspect looks at beyond the foreground; the zero
// value is all of it (the others exist for the benchmark's baseline).
type probeOpts struct {
	noTree     bool // only the foreground group (or the session)
	noTimeouts bool // a wait's timeout is not read
	depth      int  // how many relays deep in is
	// seen are the terminals already looked at, through the relays
	// followed to this one (probe_relay_linux.go).
	seen []string
}

// Inspect asks the kernel what the processes that could read in's input
// are doing: the foreground process group of the terminal, or in pipe mode
// every process of the session, and then, unless one of those computes or
// reads, the rest of the command's tree (descendants in other groups and
// sessions, and processes carrying in.Tag: a daemon's helper), where only
// a read or wait on the input counts. Every thread is looked at, since the
// one reading is often not the main one. A thread running on a CPU makes
// the answer Busy: a program that computes is not waiting.
//
// A process of the tree that holds the master side of another terminal
// relays it (script, screen, tmux, expect): when the tree waits on its
// input, the verdict is that of the inner terminal's foreground
// (throughRelays).
func (pr *Prober) Inspect(in Input) Probe { return pr.inspect(in, probeOpts{}) }

func (pr *Prober) inspect(in Input, o probeOpts) Probe {
	r, seen := pr.inspectTerm(in, o)
	if seen.running || in.Direct {
		return r
	}
	return pr.throughRelays(in, r, seen, o)
}

// termSeen is what inspectTerm saw beside its verdict.
type termSeen struct {
	leader  int  // the process it started from
	running bool // a thread of the foreground computes
	// watched: a process of the tree waits on the input among other
	// descriptors, with or without a timeout, as a relay does.
	watched bool
}

// inspectTerm is Inspect without the relays: the verdict on in's terminal
// alone.
func (pr *Prober) inspectTerm(in Input, o probeOpts) (Probe, termSeen) {
	// The group leader is the reader in most cases (a shell's read builtin,
	// input(), getpass); only look further when it is not.
	leader := in.Pgrp
	if leader == 0 {
		leader = in.Session
	}
	acc := probeAcc{noTimeouts: o.noTimeouts}
	if in.Only != 0 {
		acc.addProcess(in.Only, in.Path)
		return acc.result(), termSeen{leader: in.Only, running: acc.running, watched: acc.watched()}
	}
	acc.addProcess(leader, in.Path)
	if acc.conclusive() {
		return acc.result(), termSeen{leader: leader, running: true}
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
	seen := termSeen{leader: leader, running: acc.running, watched: acc.watched()}
	if o.noTree || acc.running || acc.reader != nil {
		r := acc.result()
		r.Watched = seen.watched
		return r, seen
	}
	// Nothing in the foreground computes or reads: a reader may sit
	// elsewhere in the tree (a dialog a daemon drew, a setsid child that
	// opened the terminal by name).
	out := probeAcc{outside: true, noTimeouts: o.noTimeouts}
	for _, pid := range pr.outside(in, leader) {
		out.addProcess(pid, in.Path)
		if out.reader != nil {
			return Probe{Activity: Reading, Reader: *out.reader, Outside: true}, seen
		}
	}
	seen.watched = seen.watched || out.watched()
	r := acc.result()
	if out.pollsInput && r.Activity != Polling {
		r = Probe{Activity: Polling, Outside: true}
	}
	r.Watched = seen.watched
	return r, seen
}

// members returns the pids of in's group (or session) other than leader,
// from the copy of the process table, read anew unless it is at most
// maxAge old (0: always).
func (pr *Prober) members(in Input, leader int, maxAge time.Duration) []int {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	pr.refreshLocked(maxAge)
	var out []int
	for _, e := range pr.procs {
		if e.pid == leader || !foreground(in, e) {
			continue
		}
		out = append(out, e.pid)
	}
	return out
}

// foreground reports whether e is one of the processes Inspect looks at
// first: in's foreground group, or in pipe mode its session.
func foreground(in Input, e procEntry) bool {
	if in.Pgrp != 0 {
		return e.pgrp == in.Pgrp
	}
	return e.sid == in.Session
}

// refreshLocked reads the process table anew unless the copy is at most
// maxAge old (0: always), and forgets the tags of processes that are gone.
func (pr *Prober) refreshLocked(maxAge time.Duration) {
	if maxAge != 0 && time.Since(pr.at) <= maxAge {
		return
	}
	pr.procs = readTable(pr.procs[:0])
	pr.at = time.Now()
	pr.kids, pr.byPid = nil, nil
	if len(pr.tagged) == 0 {
		return
	}
	live := make(map[int]uint64, len(pr.procs))
	for _, e := range pr.procs {
		live[e.pid] = e.start
	}
	for k := range pr.tagged {
		if st, ok := live[k.pid]; !ok || st != k.start {
			delete(pr.tagged, k)
		}
	}
}

// maxOutside bounds the processes of a tree looked at outside its
// foreground: a tree is a command's, and rarely holds more than a few.
const maxOutside = 256

// outside returns the processes of in's tree that are not in its
// foreground group (or session): the session leader's descendants, and the
// processes whose environment holds in.Tag (descendants that left: a daemon
// another process started and that was handed to this server, the child
// subreaper, or to init) with their own descendants, from the copy of the
// process table.
func (pr *Prober) outside(in Input, leader int) []int {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	pr.refreshLocked(tableAge)
	pr.indexLocked()
	kids, byPid := pr.kids, pr.byPid
	self := os.Getpid()
	var roots []int
	// Orphans are handed to this server (the child subreaper) or to init.
	for _, parent := range []int{self, 1} {
		for _, pid := range kids[parent] {
			if e := byPid[pid]; pid != in.Session && pr.carriesLocked(e, in.Tag) {
				roots = append(roots, pid)
			}
		}
	}
	seen := map[int]bool{in.Session: true}
	queue := append([]int{in.Session}, roots...)
	var out []int
	for len(queue) > 0 && len(out) < maxOutside {
		pid := queue[0]
		queue = queue[1:]
		if e, ok := byPid[pid]; ok && pid != leader && pid != self && !foreground(in, e) {
			out = append(out, pid)
		}
		for _, k := range kids[pid] {
			if !seen[k] {
				seen[k] = true
				queue = append(queue, k)
			}
		}
	}
	return out
}

// indexLocked indexes the copy of the process table by parent and by pid,
// unless it is.
func (pr *Prober) indexLocked() {
	if pr.kids != nil {
		return
	}
	pr.kids = make(map[int][]int, len(pr.procs))
	pr.byPid = make(map[int]procEntry, len(pr.procs))
	for _, e := range pr.procs {
		pr.kids[e.ppid] = append(pr.kids[e.ppid], e.pid)
		pr.byPid[e.pid] = e
	}
}

// carriesLocked reports whether process e's environment holds tag
// ("KEY=VALUE"); what an environment says is kept for the process's life.
func (pr *Prober) carriesLocked(e procEntry, tag string) bool {
	if tag == "" {
		return false
	}
	k := tagKey{e.pid, e.start, tag}
	if v, ok := pr.tagged[k]; ok {
		return v
	}
	v := holdsVar(pr.env.Read(e.pid), tag)
	if pr.tagged == nil {
		pr.tagged = map[tagKey]bool{}
	}
	pr.tagged[k] = v
	return v
}

// holdsVar reports whether a NUL-separated environment holds kv.
func holdsVar(env []byte, kv string) bool {
	for e := range bytes.SplitSeq(env, []byte{0}) {
		if string(e) == kv {
			return true
		}
	}
	return false
}

// readTable lists the processes a probe may look at, with their parent,
// group, session and start. As the child subreaper (the server), every
// process of every command's tree descends from this one, orphans
// included: the table is then this process and its descendants, found
// by walking down from it, so that reading it costs what the server runs
// and not what the machine runs. Otherwise it is the machine's whole
// table, where orphans are init's.
func readTable(dst []procEntry) []procEntry {
	if proc.Subreaper() {
		return readTree(dst, os.Getpid())
	}
	return readWhole(dst)
}

// readWhole lists every process of the machine.
func readWhole(dst []procEntry) []procEntry {
	pids, _ := proc.Pids()
	for _, pid := range pids {
		dst = addEntry(dst, pid)
	}
	return dst
}

// readTree lists root and its descendants (see [proc.Descendants]).
func readTree(dst []procEntry, root int) []procEntry {
	dst = addEntry(dst, root)
	for _, pid := range proc.Descendants(root) {
		dst = addEntry(dst, pid)
	}
	return dst
}

// addEntry appends process pid to dst, unless it is gone. A zombie stays:
// it links its children to the tree.
func addEntry(dst []procEntry, pid int) []procEntry {
	st, err := proc.ReadStat(pid)
	if err != nil {
		return dst
	}
	return append(dst, procEntry{pid, st.PPid, st.Pgrp, st.Session, st.TtyNr, st.Tpgid, st.Start})
}

// probeAcc sums up the threads seen so far.
type probeAcc struct {
	// outside: the processes are outside the foreground (probeOutside),
	// where only a read or a wait on the input counts: what they compute
	// or wait for otherwise says nothing about the foreground.
	outside    bool
	noTimeouts bool // the baseline: a wait's timeout is not read

	seen    bool // at least one thread could be read
	denied  bool // a thread could not be read: another user's (sudo)
	running bool
	other   bool
	polling bool // in a poll whose descriptors could not be read
	// pollsInput: in a poll, epoll or select that includes the input,
	// with no timeout; timed: with one.
	pollsInput bool
	timed      bool
	waiter     Task // the first thread seen in a timed wait, and its timeout
	timeout    time.Duration
	reader     *Task
}

func (a *probeAcc) conclusive() bool { return a.running }

// watched reports whether a thread seen waits on the input among other
// descriptors, timed or not, or on descriptors that could not be read.
func (a *probeAcc) watched() bool { return a.pollsInput || a.timed || a.polling }

// waitsOnOthers reports whether every thread seen waits on a child or a
// lock: the process is a parent waiting for the ones that do the work.
func (a *probeAcc) waitsOnOthers() bool {
	return a.seen && !a.running && !a.other && !a.polling && !a.pollsInput && a.reader == nil
}

func (a *probeAcc) result() Probe {
	switch {
	case !a.seen && a.denied, a.denied && a.waitsOnOthers():
		// Nothing could be read, or only a parent waiting for a child
		// that cannot be (a shell that ran sudo or passwd, setuid, as
		// another user, without exec'ing it): the reader may be that
		// child, and the question stays open.
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
	return Probe{Activity: Busy, Timed: a.timed, Waiter: a.waiter, Timeout: a.timeout}
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
	case a.outside && err != nil:
		return
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
		a.running = a.running || !a.outside
		return
	}
	class := classify(nr)
	if class >= scRead && !sleeping(t) {
		// In the call but not asleep in it: its input is there and it is
		// about to take it (or the state changed under us). Outside the
		// foreground it may as well be stopped (a job in the background).
		a.running = a.running || !a.outside
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
		timed := false
		var d time.Duration
		if w != waitNotInput && !a.noTimeouts {
			var ok bool
			d, ok = waitTimeout(nr, args, func(addr uintptr, n int) ([]byte, error) { return proc.ReadMem(t.Pid, addr, n) })
			timed = ok && d >= 0 && d <= maxTimer
		}
		switch {
		case w == waitOnlyInput && class != scEpoll:
			// One descriptor, and it is ours: readline (select), htop
			// and ncurses' timed reads (poll), whatever their timeout.
			// An epoll set holding only the input is rare; an event
			// loop's holds more.
			a.reader = &t
		case w == waitNotInput:
			// A timer, a socket, a child's pipe: whatever it waits for,
			// typing is not it.
			a.other = true
		case timed:
			// A wait that includes the input among others but ends
			// after a timeout is a timer's: an event loop waits for its
			// next timer (node's setTimeout), and a line wait has none.
			if !a.timed {
				a.waiter, a.timeout = t, d
			}
			a.other, a.timed = true, true
		case w == waitUnknown:
			a.polling = !a.outside
		default:
			a.pollsInput = true
		}
	default:
		a.other = true
	}
}

// maxTimer bounds the timeout of a wait that is taken for a timer's: a
// program that prints a question and then sleeps before it reads sleeps
// seconds (the false friends of issue 32 sleep 3 s), while a longer
// timeout is a keep-alive in a loop that waits for input (ssh's
// ServerAliveInterval, a select loop that wakes every minute), and the
// wait counts as one on the input.
const maxTimer = 10 * time.Second

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
func waitsOn(pid int, class syscallClass, args [6]uint64, input string) wait {
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
	return link == input || link == "/dev/tty" && strings.HasPrefix(input, "/dev/") && cttyIs(pid, input)
}

// cttyIs reports whether process pid's controlling terminal is the
// terminal at path: a process that opened /dev/tty reads its own, which
// for a program inside a relay is the inner terminal, not the command's.
func cttyIs(pid int, path string) bool {
	st, err := proc.ReadStat(pid)
	if err != nil {
		return false
	}
	var dev unix.Stat_t
	return unix.Stat(path, &dev) == nil && st.TtyNr == ttyNr(dev.Rdev)
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

// timeoutForm is how a wait's timeout is passed.
type timeoutForm int

const (
	toNone     timeoutForm = iota // not a wait this file knows
	toMillis                      // an int of milliseconds; negative: none
	toTimespec                    // a struct timespec pointer (s, ns); NULL: none
	toTimeval                     // a struct timeval pointer (s, µs); NULL: none
)

// timeoutArg says which argument of wait nr is its timeout, and its form.
func timeoutArg(nr int64) (timeoutForm, int) {
	switch nr {
	case unix.SYS_PPOLL:
		return toTimespec, 2 // ppoll(fds, nfds, tsp, sigmask, size)
	case unix.SYS_PSELECT6:
		return toTimespec, 4 // pselect6(nfds, r, w, e, tsp, sig)
	case unix.SYS_EPOLL_PWAIT:
		return toMillis, 3 // epoll_pwait(epfd, events, max, ms, sigmask, size)
	case unix.SYS_EPOLL_PWAIT2:
		return toTimespec, 3 // epoll_pwait2(epfd, events, max, tsp, sigmask, size)
	}
	return archTimeoutArg(nr)
}

// waitTimeout returns the timeout of wait nr, from its arguments and, when
// they point to it, the process's memory as mem reads it: -1 for none
// (the wait lasts until a descriptor is ready). ok is false when it is not
// known: not a wait, memory that cannot be read, a 32-bit layout.
func waitTimeout(nr int64, args [6]uint64, mem func(addr uintptr, n int) ([]byte, error)) (d time.Duration, ok bool) {
	form, i := timeoutArg(nr)
	if form == toNone {
		return 0, false
	}
	arg := args[i]
	if form == toMillis {
		// An int: the register's upper half is not the caller's.
		ms := int32(uint32(arg))
		if ms < 0 {
			return -1, true
		}
		return time.Duration(ms) * time.Millisecond, true
	}
	if arg == 0 {
		return -1, true // NULL: no timeout
	}
	if strconv.IntSize != 64 {
		return 0, false // 32-bit structures: not read
	}
	b, err := mem(uintptr(arg), 16)
	if err != nil || len(b) < 16 {
		return 0, false
	}
	sec := int64(binary.NativeEndian.Uint64(b))
	frac := int64(binary.NativeEndian.Uint64(b[8:]))
	unit := time.Nanosecond
	if form == toTimeval {
		unit = time.Microsecond
	}
	if sec < 0 || frac < 0 || frac >= int64(time.Second/unit) {
		return 0, false // invalid: the call would have failed, not waited
	}
	const maxSec = int64(1<<63-1) / int64(time.Second)
	if sec >= maxSec {
		return time.Duration(1<<63 - 1), true
	}
	return time.Duration(sec)*time.Second + time.Duration(frac)*unit, true
}
