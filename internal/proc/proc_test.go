package proc

import (
	"bytes"
	"errors"
	"os"
	"runtime"
	"strings"
	"testing"
)

// Real lines, read on Linux 6.x, with the command names a stat parser
// gets wrong: spaces, parentheses, a ')' followed by what looks like
// fields (a copy of sleep named "a) b (c").
var statLines = []struct {
	name, line string
	want       Stat
	bad        bool
}{
	{name: "comm_with_paren_and_spaces", line: "22996 (a) b (c) S 22995 22992 26211 0 -1 4194304 146 0 0 0 0 0 0 0 20 0 1 0 254210 2990080 444 18446744073709551615 94379701657600 94379701675529 140736381106336 0 0 0 0 6 0 1 0 0 17 0 0 0 0 0 0 94379701689616 94379701690880 94380395401216 140736381110984 140736381110996 140736381110996 140736381112302 0",
		want: Stat{Tpgid: -1, Comm: "a) b (c", State: 'S', PPid: 22995, Pgrp: 22992, Session: 26211, Flags: 4194304, Start: 254210, EndCode: 94379701675529, EnvStart: 140736381110996, EnvEnd: 140736381112302}},
	{name: "running", line: "22829 (head) R 22823 22823 26211 0 -1 4194304 103 0 0 0 0 0 0 0 20 0 1 0 253829 2998272 416 18446744073709551615 94010903187456 94010903211561 140730971334144 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0 94010903227408 94010903229024 94011023761408 140730971339422 140730971339450 140730971339450 140730971340778 0",
		want: Stat{Tpgid: -1, Comm: "head", State: 'R', PPid: 22823, Pgrp: 22823, Session: 26211, Flags: 4194304, Start: 253829, EndCode: 94010903211561, EnvStart: 140730971339450, EnvEnd: 140730971340778}},
	{name: "kernel_thread", line: "2 (kthreadd) S 0 0 0 0 -1 2129984 0 0 0 0 0 0 0 0 20 0 1 0 25 0 0 18446744073709551615 0 0 0 0 0 0 0 2147483647 0 1 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0",
		want: Stat{Tpgid: -1, Comm: "kthreadd", State: 'S', Flags: 2129984, Start: 25}},
	// The line of a sleep with its name replaced by ")".
	{name: "comm_is_a_paren", line: "23000 ()) S 22999 22992 26211 0 -1 4194304 289 0 0 0 0 0 0 0 20 0 1 0 254231 2990080 424 18446744073709551615 94389075324928 94389075342857 140730153652640 0 0 0 0 6 0 1 0 0 17 1 0 0 0 0 0 94389075356944 94389075358208 94389947932672 140730153659072 140730153659082 140730153659082 140730153660393 0",
		want: Stat{Tpgid: -1, Comm: ")", State: 'S', PPid: 22999, Pgrp: 22992, Session: 26211, Flags: 4194304, Start: 254231, EndCode: 94389075342857, EnvStart: 140730153659082, EnvEnd: 140730153660393}},
	// A busy process's: CPU times in fields 14-17 (user, system, and its
	// reaped children's).
	{name: "cpu_times", line: "23853 (sh) S 23851 23851 26211 0 -1 4194304 159 63 0 0 24 0 27 0 20 0 1 0 256989 2654208 404 18446744073709551615 94665926078464 94665926155193 140724802410128 0 0 0 0 0 65538 1 0 0 17 1 0 0 0 0 0 94665926184496 94665926189632 94666328375296 140724802415158 140724802415294 140724802415294 140724802416620 0",
		want: Stat{Tpgid: -1, Comm: "sh", State: 'S', PPid: 23851, Pgrp: 23851, Session: 26211, Flags: 4194304, Utime: 24, Stime: 0, Cutime: 27, Cstime: 0, Start: 256989, EndCode: 94665926155193, EnvStart: 140724802415294, EnvEnd: 140724802416620}},
	// A shell's on /dev/pts/3 (major 136, minor 3), its job in the
	// foreground.
	{name: "on_a_terminal", line: "23851 (bash) S 23850 23851 23851 34819 23900 4194560 159 63 0 0 24 0 27 0 20 0 1 0 256989 2654208 404 18446744073709551615 94665926078464 94665926155193 140724802410128 0 0 0 0 0 65538 1 0 0 17 1 0 0 0 0 0 94665926184496 94665926189632 94666328375296 140724802415158 140724802415294 140724802415294 140724802416620 0",
		want: Stat{Comm: "bash", State: 'S', PPid: 23850, Pgrp: 23851, Session: 23851, TtyNr: 34819, Tpgid: 23900, Flags: 4194560, Utime: 24, Cutime: 27, Start: 256989, EndCode: 94665926155193, EnvStart: 140724802415294, EnvEnd: 140724802416620}},
	{name: "no_comm", line: "1 S 0 1 1", bad: true},
	{name: "too_few_fields", line: "1 (init) S 0 1 1 0", bad: true},
	{name: "state_not_a_letter", line: "1 (x) SS 0 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 2 0 0 0 0 0 0", bad: true},
	{name: "number_garbled", line: "1 (x) S 0 1x 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 2 0 0 0 0 0 0", bad: true},
}

func TestParseStat(t *testing.T) {
	for _, tc := range statLines {
		got, err := ParseStat([]byte(tc.line))
		switch {
		case tc.bad && !errors.Is(err, ErrFormat):
			t.Errorf("%s: ParseStat = %+v, %v; want ErrFormat", tc.name, got, err)
		case !tc.bad && (err != nil || got != tc.want):
			t.Errorf("%s: ParseStat = %+v, %v\nwant %+v", tc.name, got, err, tc.want)
		}
	}
}

// FuzzParseStat: no line makes the parser panic, and what parses keeps its
// fields when the command name is written anew: the fields are counted
// from the last ')', whatever the name holds. The seeds run in go test.
func FuzzParseStat(f *testing.F) {
	for _, tc := range statLines {
		f.Add([]byte(tc.line))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		st, err := ParseStat(b)
		if err != nil {
			return
		}
		i := bytes.LastIndexByte(b, ')')
		again, err := ParseStat(append([]byte("1 ("+st.Comm+")"), b[i+1:]...))
		if err != nil || again != st {
			t.Fatalf("%q parses as %+v, rewritten as %+v, %v", b, st, again, err)
		}
	})
}

func TestParseStatus(t *testing.T) {
	const status = "Name:\tbash\nState:\tS (sleeping)\nSigQ:\t0/63704\nSigPnd:\t0000000000000000\nShdPnd:\t0000000000000000\nSigBlk:\t0000000000010000\nSigIgn:\t0000000000384004\nSigCgt:\t000000004b813efb\nvoluntary_ctxt_switches:\t152\nnonvoluntary_ctxt_switches:\t3\n"
	got, err := ParseStatus([]byte(status))
	if want := (Status{SigIgn: 0x384004, VoluntarySwitches: 152}); err != nil || got != want {
		t.Fatalf("ParseStatus = %+v, %v; want %+v", got, err, want)
	}
	// bash ignores SIGTERM (15) and SIGQUIT (3) at its prompt, not SIGHUP (1).
	if !got.Ignores(15) || !got.Ignores(3) || got.Ignores(1) {
		t.Errorf("Ignores: 15 %v, 3 %v, 1 %v", got.Ignores(15), got.Ignores(3), got.Ignores(1))
	}
	if _, err := ParseStatus([]byte("SigIgn:\tzz\n")); !errors.Is(err, ErrFormat) {
		t.Errorf("a garbled SigIgn: %v, want ErrFormat", err)
	}
	for text, confined := range map[string]bool{
		"NoNewPrivs:\t1\nSeccomp:\t2\nSeccomp_filters:\t1\n": true,
		"NoNewPrivs:\t0\nSeccomp:\t2\n":                      false, // a container's filter
		"NoNewPrivs:\t1\nSeccomp:\t0\n":                      false,
		"Name:\tx\n":                                         false,
	} {
		if st, err := ParseStatus([]byte(text)); err != nil || st.Confined() != confined {
			t.Errorf("%q: Confined = %v, %v; want %v", text, st.Confined(), err, confined)
		}
	}
}

func TestParseSyscall(t *testing.T) {
	for _, tc := range []struct {
		line string
		want Syscall
		bad  bool
	}{
		{line: "running\n", want: Syscall{Nr: -1}},
		{line: "-1 0x7ffd6a2b3c40 0x7f1e2a3b4c5d\n", want: Syscall{Nr: -1}},
		{line: "0 0x0 0x7ffd6a2b3c40 0x1 0x0 0x0 0x0 0x7ffd6a2b3b08 0x7f1e2a3b4c5d\n", want: Syscall{Nr: 0, Args: [6]uint64{0, 0x7ffd6a2b3c40, 1}, SP: 0x7ffd6a2b3b08, PC: 0x7f1e2a3b4c5d}},
		{line: "7 0x55d0c4a0 0x2 0xffffffff\n", want: Syscall{Nr: 7, Args: [6]uint64{0x55d0c4a0, 2, 0xffffffff}}},
		// node's idle event loop (epoll_wait, timeout -1 as an int) and a
		// python select with a 3 s timeval.
		{line: "232 0x11 0x7ffc1e5a6c20 0x400 0xffffffffffffffff 0x0 0x0 0x7ffc1e5a6bc8 0x7f5b2c3e1e2e\n", want: Syscall{Nr: 232, Args: [6]uint64{0x11, 0x7ffc1e5a6c20, 0x400, 0xffffffffffffffff, 0, 0}, SP: 0x7ffc1e5a6bc8, PC: 0x7f5b2c3e1e2e}},
		{line: "23 0x5 0x7ffe3b1f2a00 0x0 0x0 0x7ffe3b1f29f0 0x0 0x7ffe3b1f2998 0x7f0d9e4f1b3a\n", want: Syscall{Nr: 23, Args: [6]uint64{5, 0x7ffe3b1f2a00, 0, 0, 0x7ffe3b1f29f0, 0}, SP: 0x7ffe3b1f2998, PC: 0x7f0d9e4f1b3a}},
		{line: "7 0x1 0x2 0x3 0x4 0x5 0x6 0x7 zz\n", bad: true},
		{line: "232 0x4 zz\n", bad: true},
	} {
		got, err := ParseSyscall([]byte(tc.line))
		if tc.bad != errors.Is(err, ErrFormat) || !tc.bad && got != tc.want {
			t.Errorf("ParseSyscall(%q) = %+v, %v; want %+v (bad %v)", tc.line, got, err, tc.want, tc.bad)
		}
	}
}

// The readers on this process: what /proc says of it must be true.
func TestReadSelf(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("needs Linux's /proc")
	}
	pid := os.Getpid()
	st, err := ReadStat(pid)
	if err != nil || st.PPid != os.Getppid() || st.Start == 0 || !st.ExecDone() || !strings.ContainsRune("RSD", rune(st.State)) {
		t.Errorf("ReadStat(self) = %+v, %v", st, err)
	}
	// The process's state is its main thread's, which may be asleep (or
	// waiting on a disk) while another thread runs this test: the state a
	// running thread reads is TestReadTaskStatSelf's.
	pids, err := Pids()
	if err != nil || !contains(pids, pid) {
		t.Errorf("Pids lacks this process (%d): %v", pid, err)
	}
	tids, err := Tasks(pid)
	if err != nil || !contains(tids, pid) {
		t.Errorf("Tasks lacks the main thread: %v %v", tids, err)
	}
	if _, err := ReadTaskStatus(pid, pid); err != nil {
		t.Errorf("ReadTaskStatus: %v", err)
	}
	var env EnvReader
	if e := env.Read(pid); !bytes.Contains(e, []byte("PATH=")) && os.Getenv("PATH") != "" {
		t.Errorf("EnvReader.Read(self) lacks PATH (%d bytes)", len(e))
	}
	if link, err := ReadFDLink(pid, 0); err != nil || link == "" {
		t.Errorf("ReadFDLink(self, 0) = %q, %v", link, err)
	}
}

func contains(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

func TestTTYIndex(t *testing.T) {
	tests := []struct {
		fdinfo string
		want   int
		ok     bool
	}{
		{"pos:\t0\nflags:\t02100002\nmnt_id:\t24\nino:\t90\ntty-index:\t7\n", 7, true},
		{"pos:\t0\nflags:\t02100002\nmnt_id:\t24\nino:\t90\n", 0, false},
		{"tty-index:\tx\n", 0, false},
		{"tty-index:\t-1\n", -1, false},
	}
	for _, tt := range tests {
		if got, ok := TTYIndex([]byte(tt.fdinfo)); ok != tt.ok || ok && got != tt.want {
			t.Errorf("%q: %d %v, want %d %v", tt.fdinfo, got, ok, tt.want, tt.ok)
		}
	}
}
