package session

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"syscall"
)

// signals are the names stop accepts, as Python's signal module spells them
// (what mcp-yieldshell 0.4.0 reported).
var signals = map[string]syscall.Signal{
	"SIGHUP": syscall.SIGHUP, "SIGINT": syscall.SIGINT, "SIGQUIT": syscall.SIGQUIT,
	"SIGILL": syscall.SIGILL, "SIGTRAP": syscall.SIGTRAP, "SIGABRT": syscall.SIGABRT,
	"SIGBUS": syscall.SIGBUS, "SIGFPE": syscall.SIGFPE, "SIGKILL": syscall.SIGKILL,
	"SIGUSR1": syscall.SIGUSR1, "SIGSEGV": syscall.SIGSEGV, "SIGUSR2": syscall.SIGUSR2,
	"SIGPIPE": syscall.SIGPIPE, "SIGALRM": syscall.SIGALRM, "SIGTERM": syscall.SIGTERM,
	"SIGCHLD": syscall.SIGCHLD, "SIGCONT": syscall.SIGCONT, "SIGSTOP": syscall.SIGSTOP,
	"SIGTSTP": syscall.SIGTSTP, "SIGTTIN": syscall.SIGTTIN, "SIGTTOU": syscall.SIGTTOU,
	"SIGURG": syscall.SIGURG, "SIGXCPU": syscall.SIGXCPU, "SIGXFSZ": syscall.SIGXFSZ,
	"SIGVTALRM": syscall.SIGVTALRM, "SIGPROF": syscall.SIGPROF, "SIGWINCH": syscall.SIGWINCH,
	"SIGIO": syscall.SIGIO, "SIGPWR": syscall.SIGPWR, "SIGSYS": syscall.SIGSYS,
}

// ParseSignal accepts a signal name in any case, with or without the SIG
// prefix ("SIGTERM", "term", "INT"), or its number.
func ParseSignal(name string) (syscall.Signal, error) {
	n := strings.ToUpper(strings.TrimSpace(name))
	if num, err := strconv.Atoi(n); err == nil {
		for _, s := range signals {
			if int(s) == num {
				return s, nil
			}
		}
	}
	if !strings.HasPrefix(n, "SIG") {
		n = "SIG" + n
	}
	if s, ok := signals[n]; ok {
		return s, nil
	}
	return 0, fmt.Errorf("unknown signal %q; use one of %s", name, strings.Join(SignalNames(), ", "))
}

// SignalNames lists the accepted names in signal-number order.
func SignalNames() []string {
	names := make([]string, 0, len(signals))
	for n := range signals {
		names = append(names, n)
	}
	slices.SortFunc(names, func(a, b string) int { return int(signals[a]) - int(signals[b]) })
	return names
}

// SignalName returns the conventional name of s ("SIGTERM"), or "SIG<n>".
func SignalName(s syscall.Signal) string {
	for n, v := range signals {
		if v == s {
			return n
		}
	}
	return "SIG" + strconv.Itoa(int(s))
}
