package prompt

import (
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	cpty "github.com/creack/pty"
	"github.com/yieldshell/yieldshell/internal/poll"
	"golang.org/x/sys/unix"
)

// childEnv makes the test binary play a child process (see TestMain).
const childEnv = "PROMPT_TEST_CHILD"

func TestMain(m *testing.M) {
	if role := os.Getenv(childEnv); role != "" {
		os.Exit(child(role))
	}
	// As the server is: the reaper of its orphaned descendants, so that a
	// daemon a child starts stays below it (probe_tree_linux_test.go).
	_ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
	os.Exit(m.Run())
}

// child does one kind of waiting, forever (the test kills it).
func child(role string) int {
	fmt.Print("ready\n")
	switch role {
	case "read":
		b := make([]byte, 1)
		for {
			_, _ = os.Stdin.Read(b)
		}
	case "spin":
		for {
		}
	case "poll":
		r, w, _ := os.Pipe()
		defer w.Close()
		fds := []unix.PollFd{{Fd: 0, Events: unix.POLLIN}, {Fd: int32(r.Fd()), Events: unix.POLLIN}}
		for {
			_, _ = unix.Poll(fds, -1)
		}
	case "pollother":
		r, w, _ := os.Pipe()
		defer w.Close()
		fds := []unix.PollFd{{Fd: int32(r.Fd()), Events: unix.POLLIN}, {Fd: 0, Events: unix.POLLOUT}}
		for {
			_, _ = unix.Poll(fds, -1)
		}
	case "epoll", "epollother", "epollnested":
		r, w, _ := os.Pipe()
		defer w.Close()
		ep, _ := unix.EpollCreate1(0)
		_ = unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, int(r.Fd()), &unix.EpollEvent{Events: unix.EPOLLIN})
		switch role {
		case "epoll":
			_ = unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, 0, &unix.EpollEvent{Events: unix.EPOLLIN})
		case "epollnested":
			inner, _ := unix.EpollCreate1(0)
			_ = unix.EpollCtl(inner, unix.EPOLL_CTL_ADD, 0, &unix.EpollEvent{Events: unix.EPOLLIN})
			_ = unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, inner, &unix.EpollEvent{Events: unix.EPOLLIN})
		}
		evs := make([]unix.EpollEvent, 4)
		for {
			_, _ = unix.EpollWait(ep, evs, -1)
		}
	case "selectmany", "selectother":
		r, w, _ := os.Pipe()
		defer w.Close()
		for {
			var set unix.FdSet
			set.Set(int(r.Fd()))
			if role == "selectmany" {
				set.Set(0)
			}
			_, _ = unix.Pselect(int(r.Fd())+1, &set, nil, nil, nil, nil)
		}
	case "polltimed":
		// An event loop waiting for its next timer, input among its
		// descriptors.
		r, w, _ := os.Pipe()
		defer w.Close()
		fds := []unix.PollFd{{Fd: 0, Events: unix.POLLIN}, {Fd: int32(r.Fd()), Events: unix.POLLIN}}
		for {
			_, _ = unix.Poll(fds, 3000)
		}
	case "pollkeepalive":
		r, w, _ := os.Pipe()
		defer w.Close()
		fds := []unix.PollFd{{Fd: 0, Events: unix.POLLIN}, {Fd: int32(r.Fd()), Events: unix.POLLIN}}
		for {
			_, _ = unix.Poll(fds, 60000) // a keep-alive, as ssh's ServerAliveInterval
		}
	case "selecttimed":
		r, w, _ := os.Pipe()
		defer w.Close()
		for {
			var set unix.FdSet
			set.Set(int(r.Fd()))
			set.Set(0)
			_, _ = unix.Pselect(int(r.Fd())+1, &set, nil, nil, &unix.Timespec{Sec: 3}, nil)
		}
	case "epolltimed":
		r, w, _ := os.Pipe()
		defer w.Close()
		ep, _ := unix.EpollCreate1(0)
		_ = unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, int(r.Fd()), &unix.EpollEvent{Events: unix.EPOLLIN})
		_ = unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, 0, &unix.EpollEvent{Events: unix.EPOLLIN})
		evs := make([]unix.EpollEvent, 4)
		for {
			_, _ = unix.EpollWait(ep, evs, 3000)
		}
	case "sleep":
		time.Sleep(time.Hour)
	case "lazyrelay":
		// A relay that has not read what the program inside wrote yet:
		// it runs a timed select (which prints "ready") under a terminal
		// of its own and watches only its own input.
		return lazyRelay()
	case "poll1":
		fds := []unix.PollFd{{Fd: 0, Events: unix.POLLIN}}
		for {
			_, _ = unix.Poll(fds, 1500) // as htop waits for a key between redraws
		}
	case "select1":
		for {
			var set unix.FdSet
			set.Set(0)
			_, _ = unix.Pselect(1, &set, nil, nil, nil, nil)
		}
	}
	return 0
}

func TestInspect(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// A role is played by the test binary; a shell line by sh. (A Go
	// program that sleeps waits in epoll, on descriptors that are not the
	// input.)
	tests := []struct {
		role string
		tty  bool
		want Activity
		// untimed, when set, is the verdict of the probe that does not
		// read timeouts: the test waits for it first, so that the child
		// is known to be in its wait when the answer is checked.
		untimed Activity
	}{
		{"read", true, Reading, Unknown},
		{"read", false, Reading, Unknown},
		{"select1", true, Reading, Unknown},
		{"poll1", true, Reading, Unknown},
		{"poll1", false, Reading, Unknown},
		{"poll", true, Polling, Unknown},
		{"poll", false, Polling, Unknown},
		{"pollother", true, Busy, Unknown},
		{"epoll", true, Polling, Unknown},
		{"epoll", false, Polling, Unknown},
		{"epollnested", true, Polling, Unknown},
		{"epollother", true, Busy, Unknown},
		{"polltimed", true, Busy, Polling},
		{"polltimed", false, Busy, Polling},
		{"selecttimed", true, Busy, Polling},
		{"pollkeepalive", true, Polling, Unknown},
		{"epolltimed", true, Busy, Polling},
		{"selectmany", true, Polling, Unknown},
		{"selectother", true, Busy, Unknown},
		{"sleep", true, Busy, Unknown},
		{"spin", true, Busy, Unknown},
		{"echo ready; exec sleep 3600", true, Busy, Unknown},
		{"echo ready; exec sleep 3600", false, Busy, Unknown},
		{"echo ready; sleep 3600 | cat", true, Busy, Unknown},
		{"echo ready; exec cat", true, Reading, Unknown},
	}
	for _, tt := range tests {
		cmd := exec.Command(self)
		cmd.Env = append(os.Environ(), childEnv+"="+tt.role)
		if strings.Contains(tt.role, " ") {
			cmd = exec.Command("/bin/sh", "-c", tt.role)
		}
		in := Input{}
		var out *os.File
		if tt.tty {
			master, slave, err := cpty.Open()
			if err != nil {
				t.Fatal(err)
			}
			defer master.Close()
			defer slave.Close()
			cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
			cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
			in.Path, out = slave.Name(), master
		} else {
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			defer stdin.Close()
			pr, pw, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer pr.Close()
			cmd.Stdout = pw
			cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
			out = pr
			defer pw.Close()
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		in.Session = cmd.Process.Pid
		if tt.tty {
			in.Pgrp = cmd.Process.Pid
		} else {
			in.Path = pipeInput(t, cmd.Process.Pid)
		}
		buf := make([]byte, 16)
		if n, err := out.Read(buf); err != nil || !strings.Contains(string(buf[:n]), "ready") {
			t.Fatalf("%s: child did not start: %q %v", tt.role, buf[:n], err)
		}
		// The child blocks right after "ready"; give the kernel a moment by
		// asking until the answer is the wanted one or a deadline passes.
		pr := NewProber()
		var got Probe
		if tt.untimed != Unknown {
			if !poll.Within(5*time.Second, func() bool { got = pr.inspect(in, probeOpts{noTimeouts: true}); return got.Activity == tt.untimed }) {
				t.Fatalf("%s (tty %v): untimed %s, want %s", tt.role, tt.tty, got.Activity, tt.untimed)
			}
			if got = pr.Inspect(in); got.Activity != tt.want {
				t.Errorf("%s (tty %v): %s, want %s", tt.role, tt.tty, got.Activity, tt.want)
			}
			continue
		}
		// The kernel has no event for "now blocked".
		if !poll.Within(5*time.Second, func() bool { got = pr.Inspect(in); return got.Activity == tt.want }) {
			t.Errorf("%s (tty %v): %s, want %s", tt.role, tt.tty, got.Activity, tt.want)
		}
		if tt.want == Reading {
			if got.Reader.Pid != cmd.Process.Pid {
				t.Errorf("%s: reader %+v, want pid %d", tt.role, got.Reader, cmd.Process.Pid)
			}
			if _, ok := Switches(got.Reader); !ok {
				t.Errorf("%s: no context-switch count for %+v", tt.role, got.Reader)
			}
		}
	}
}

// pipeInput returns how /proc names fd 0 of pid.
func pipeInput(t *testing.T, pid int) string {
	link, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/0", pid))
	if err != nil {
		t.Fatal(err)
	}
	return link
}

func TestInspectGone(t *testing.T) {
	if got := NewProber().Inspect(Input{Session: 1 << 22, Pgrp: 1 << 22, Path: "/dev/pts/999"}); got.Activity != Busy {
		t.Errorf("a process that does not exist: %s, want busy (nothing can read)", got.Activity)
	}
}

// BenchmarkInspect measures one probe of a program that polls (so the
// process table is looked at for other members of its group), with the
// table read anew and with a shared copy, next to listing /proc alone.
func BenchmarkInspect(b *testing.B) {
	self, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	master, slave, err := cpty.Open()
	if err != nil {
		b.Fatal(err)
	}
	defer master.Close()
	defer slave.Close()
	cmd := exec.Command(self)
	cmd.Env = append(os.Environ(), childEnv+"=poll")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	in := Input{Session: cmd.Process.Pid, Pgrp: cmd.Process.Pid, Path: slave.Name()}
	b.Run("baseline-list-proc", func(b *testing.B) {
		for b.Loop() {
			d, err := os.Open("/proc")
			if err != nil {
				b.Fatal(err)
			}
			_, _ = d.Readdirnames(-1)
			d.Close()
		}
	})
	b.Run("inspect-polling", func(b *testing.B) {
		for b.Loop() {
			NewProber().Inspect(in) // reads the process table each time
		}
	})
	b.Run("inspect-polling-shared-table", func(b *testing.B) {
		pr := NewProber()
		for b.Loop() {
			pr.Inspect(in)
		}
	})
	// Without the relays' look-up (issue 43): what a poll on the input
	// costs beside it, the masters the tree holds looked for.
	b.Run("inspect-polling-shared-table-direct", func(b *testing.B) {
		pr := NewProber()
		direct := in
		direct.Direct = true
		for b.Loop() {
			pr.Inspect(direct)
		}
	})
	// The probe before issue 32: the foreground alone, no timeouts read.
	b.Run("inspect-polling-shared-table-old", func(b *testing.B) {
		pr := NewProber()
		for b.Loop() {
			pr.inspect(in, probeOpts{noTree: true, noTimeouts: true})
		}
	})
}

func TestEpollReadFds(t *testing.T) {
	tests := []struct {
		name, fdinfo string
		want         []int
	}{
		{"none", "pos:\t0\nflags:\t02000002\nmnt_id:\t16\nino:\t1057\n", nil},
		{"input and a pipe",
			"pos:\t0\nflags:\t02\nmnt_id:\t16\nino:\t1057\n" +
				"tfd:        0 events:       19 data:                0  pos:0 ino:3 sdev:19\n" +
				"tfd:       12 events:       19 data:                c  pos:0 ino:9f12 sdev:e\n",
			[]int{0, 12}},
		{"written only", "tfd:        1 events:        4 data:                1  pos:0 ino:3 sdev:19\n", nil},
		{"priority", "tfd:        7 events:        2 data:                7  pos:0 ino:3 sdev:19\n", []int{7}},
		{"edge triggered", "tfd:        5 events: 80000019 data:                5  pos:0 ino:3 sdev:19\n", []int{5}},
		{"garbage", "tfd: x events: 19\ntfd:\n", nil},
	}
	for _, tt := range tests {
		if got := epollReadFds([]byte(tt.fdinfo)); fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestPollReadFds(t *testing.T) {
	pollfd := func(fd int32, events uint16) []byte {
		b := make([]byte, 8)
		binary.NativeEndian.PutUint32(b, uint32(fd))
		binary.NativeEndian.PutUint16(b[4:], events)
		return b
	}
	tests := []struct {
		name string
		b    []byte
		want []int
	}{
		{"empty", nil, nil},
		{"input", pollfd(0, unix.POLLIN), []int{0}},
		{"rdnorm", pollfd(3, 0x40), []int{3}},
		{"output only", pollfd(1, unix.POLLOUT), nil},
		{"ignored", pollfd(-1, unix.POLLIN), nil},
		{"several", append(append(pollfd(4, unix.POLLIN), pollfd(0, unix.POLLOUT)...), pollfd(9, unix.POLLIN|unix.POLLPRI)...), []int{4, 9}},
		{"short tail", append(pollfd(2, unix.POLLIN), 1, 2, 3), []int{2}},
	}
	for _, tt := range tests {
		if got := pollReadFds(tt.b); fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestSelectReadFds(t *testing.T) {
	set := func(fds ...int) []byte {
		b := make([]byte, 16)
		for _, fd := range fds {
			w := binary.NativeEndian.Uint64(b[fd/64*8:])
			binary.NativeEndian.PutUint64(b[fd/64*8:], w|1<<(fd%64))
		}
		return b
	}
	tests := []struct {
		name string
		b    []byte
		nfds int
		want []int
	}{
		{"empty", set(), 128, nil},
		{"input", set(0), 1, []int{0}},
		{"two words", set(0, 3, 70), 71, []int{0, 3, 70}},
		{"beyond nfds", set(0, 70), 10, []int{0}},
		{"short set", set(0, 70)[:8], 128, []int{0}},
	}
	for _, tt := range tests {
		if got := selectReadFds(tt.b, tt.nfds); fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

// lazyRelay runs the test binary as "selecttimed" on a terminal whose
// master it holds and never reads, and polls its own input meanwhile.
func lazyRelay() int {
	master, slave, err := cpty.Open()
	if err != nil {
		return 1
	}
	defer master.Close()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), childEnv+"=selecttimed")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	if err := cmd.Start(); err != nil {
		return 1
	}
	_ = slave.Close()
	r, w, _ := os.Pipe()
	defer w.Close()
	fds := []unix.PollFd{{Fd: 0, Events: unix.POLLIN}, {Fd: int32(r.Fd()), Events: unix.POLLIN}}
	for {
		_, _ = unix.Poll(fds, -1)
	}
}

// TestProbeAccResult: what the threads seen add up to. A server that is
// not root cannot read a setuid program's system call (sudo, passwd run
// as another user): alone, or as the child a shell waits for, it leaves
// the question open (Unknown, so the prompt's text and the terminal's
// modes decide); beside a thread that computes or waits on something
// else, the answer stands.
func TestProbeAccResult(t *testing.T) {
	for _, c := range []struct {
		name string
		acc  probeAcc
		want Activity
	}{
		{"nothing readable", probeAcc{denied: true}, Unknown},
		{"gone", probeAcc{}, Busy},
		{"shell waits for a setuid child", probeAcc{seen: true, denied: true}, Unknown},
		{"shell waits for its child", probeAcc{seen: true}, Busy},
		{"denied beside a sleeper", probeAcc{seen: true, denied: true, other: true}, Busy},
		{"denied beside a computer", probeAcc{seen: true, denied: true, running: true}, Busy},
		{"denied beside a reader", probeAcc{seen: true, denied: true, reader: &Task{Pid: 1, Tid: 1}}, Reading},
		{"denied beside a poller", probeAcc{seen: true, denied: true, pollsInput: true}, Polling},
	} {
		if got := c.acc.result().Activity; got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}
