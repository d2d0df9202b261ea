package pty

import (
	"fmt"
	"strconv"
	"strings"
	"syscall"
)

// ParseSignal accepts a signal name in any case, with or without the SIG
// prefix ("SIGTERM", "term", "INT"), or its number.
func ParseSignal(name string) (syscall.Signal, error) {
	n := strings.ToUpper(strings.TrimSpace(name))
	if num, err := strconv.Atoi(n); err == nil && signalName(syscall.Signal(num)) != "" {
		return syscall.Signal(num), nil
	}
	if !strings.HasPrefix(n, "SIG") {
		n = "SIG" + n
	}
	if s := signalNum(n); s != 0 {
		return s, nil
	}
	return 0, fmt.Errorf("unknown signal name; use one of %s", strings.Join(SignalNames(), ", "))
}

// SignalNames lists the accepted names in signal-number order.
func SignalNames() []string {
	var names []string
	for s := syscall.Signal(1); s < 32; s++ {
		if n := signalName(s); n != "" {
			names = append(names, n)
		}
	}
	return names
}

// SignalName returns the conventional name of s ("SIGTERM"), as
// mcp-yieldshell 0.4.0 reported it, or "SIG<n>".
func SignalName(s syscall.Signal) string {
	if n := signalName(s); n != "" {
		return n
	}
	return "SIG" + strconv.Itoa(int(s))
}
