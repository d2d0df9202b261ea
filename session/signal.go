package session

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// ParseSignal accepts a signal name in any case, with or without the SIG
// prefix ("SIGTERM", "term", "INT"), or its number.
func ParseSignal(name string) (syscall.Signal, error) {
	n := strings.ToUpper(strings.TrimSpace(name))
	if num, err := strconv.Atoi(n); err == nil && unix.SignalName(syscall.Signal(num)) != "" {
		return syscall.Signal(num), nil
	}
	if !strings.HasPrefix(n, "SIG") {
		n = "SIG" + n
	}
	if s := unix.SignalNum(n); s != 0 {
		return s, nil
	}
	return 0, fmt.Errorf("unknown signal %q; use one of %s", name, strings.Join(SignalNames(), ", "))
}

// SignalNames lists the accepted names in signal-number order.
func SignalNames() []string {
	var names []string
	for s := syscall.Signal(1); s < 32; s++ {
		if n := unix.SignalName(s); n != "" {
			names = append(names, n)
		}
	}
	return names
}

// SignalName returns the conventional name of s ("SIGTERM"), as
// mcp-yieldshell 0.4.0 reported it, or "SIG<n>".
func SignalName(s syscall.Signal) string {
	if n := unix.SignalName(s); n != "" {
		return n
	}
	return "SIG" + strconv.Itoa(int(s))
}

// hangUpIgnorers ends, the way closing a terminal does, the shells of a
// PTY-mode process's terminal session that ignore sig: an interactive
// shell ignores SIGTERM but leaves on SIGHUP (hanging up its own jobs), so
// it gets SIGHUP and SIGCONT instead of sitting out the grace period until
// SIGKILL. Other programs that ignore sig, and shells that ignore SIGHUP
// too, still get SIGKILL after the grace.
func (p *Process) hangUpIgnorers(sig syscall.Signal) {
	if !p.TTY || sig == syscall.SIGHUP || sig == syscall.SIGKILL {
		return
	}
	for _, pid := range sessionMembers(p.Pid) {
		if isShell(pid) && ignores(pid, sig) {
			_ = syscall.Kill(pid, syscall.SIGHUP)  // ESRCH: gone meanwhile
			_ = syscall.Kill(pid, syscall.SIGCONT) // a stopped shell must see it
		}
	}
}

// sessionMembers lists the processes of session sid (the PTY's session,
// led by the process's direct child).
func sessionMembers(sid int) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if s, err := unix.Getsid(pid); err == nil && s == sid {
			pids = append(pids, pid)
		}
	}
	return pids
}

// ignores reports whether process pid ignores sig (SigIgn in
// /proc/PID/status).
func ignores(pid int, sig syscall.Signal) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return false
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "SigIgn:"); ok {
			mask, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
			return err == nil && mask&(1<<(uint(sig)-1)) != 0
		}
	}
	return false
}

// hangUpRetry is how long a stop waits before it hangs up again the
// session members that still ignore its signal: a shell caught in its
// start-up can miss the first SIGHUP.
const hangUpRetry = 250 * time.Millisecond

// awaitEnd waits for the end of a process that was sent sig, until
// deadline; in PTY mode it hangs up once more, after hangUpRetry, whatever
// of the terminal's session still ignores sig.
func (p *Process) awaitEnd(ctx context.Context, sig syscall.Signal, deadline time.Time) Outcome {
	if p.TTY && sig != syscall.SIGHUP && sig != syscall.SIGKILL {
		if retry := time.Now().Add(hangUpRetry); retry.Before(deadline) {
			if o := p.Await(ctx, retry, Until{}); o.Reason != ReasonDeadline {
				return o
			}
			p.hangUpIgnorers(sig)
		}
	}
	return p.Await(ctx, deadline, Until{})
}

// isShell reports whether process pid runs a shell (by its command name).
func isShell(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
	if err != nil {
		return false
	}
	switch strings.TrimSpace(string(b)) {
	case "bash", "zsh", "fish", "sh", "dash", "ksh", "mksh", "tcsh", "csh", "busybox":
		return true
	}
	return false
}
