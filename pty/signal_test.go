package pty

import (
	"syscall"
	"testing"
)

func TestParseSignal(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want syscall.Signal
		ok   bool
	}{
		{"SIGTERM", syscall.SIGTERM, true},
		{"term", syscall.SIGTERM, true},
		{" INT ", syscall.SIGINT, true},
		{"sigkill", syscall.SIGKILL, true},
		{"HUP", syscall.SIGHUP, true},
		{"9", syscall.SIGKILL, true},
		{"NOPE", 0, false},
		{"", 0, false},
		{"999", 0, false},
	} {
		got, err := ParseSignal(tc.in)
		if got != tc.want || (err == nil) != tc.ok {
			t.Errorf("ParseSignal(%q) = %v, %v; want %v, ok=%v", tc.in, got, err, tc.want, tc.ok)
		}
	}
	if SignalName(syscall.SIGTERM) != "SIGTERM" || SignalName(syscall.SIGKILL) != "SIGKILL" {
		t.Errorf("SignalName: %q %q", SignalName(syscall.SIGTERM), SignalName(syscall.SIGKILL))
	}
}
