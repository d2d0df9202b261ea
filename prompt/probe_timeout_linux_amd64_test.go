package prompt

import (
	"encoding/binary"
	"errors"
	"testing"
	"time"

	"github.com/yieldshell/yieldshell/internal/proc"
)

// TestWaitTimeout reads waits' timeouts from real /proc/PID/syscall lines
// (amd64), with the memory their pointers point to.
func TestWaitTimeout(t *testing.T) {
	ts := func(sec, frac int64) []byte {
		b := make([]byte, 16)
		binary.NativeEndian.PutUint64(b, uint64(sec))
		binary.NativeEndian.PutUint64(b[8:], uint64(frac))
		return b
	}
	tests := []struct {
		name, line string
		mem        map[uintptr][]byte
		want       time.Duration
		ok         bool
	}{
		// node's event loop: epoll_pwait(14, events, 1024, 2999) while a
		// 3 s setTimeout runs, then -1 (an int in a 64-bit register).
		{"node timer", "281 0xe 0x7ffd2ed35510 0x400 0xbb7 0x0 0x8 0x7ffd2ed347b0 0x7f09f1f26cae", nil, 2999 * time.Millisecond, true},
		{"node idle", "281 0xe 0x7ffd2ed35510 0x400 0xffffffff 0x0 0x8 0x7ffd2ed347b0 0x7f09f1f26cae", nil, -1, true},
		{"epoll_wait sign-extended", "232 0x11 0x7ffc1e5a6c20 0x400 0xffffffffffffffff 0x0 0x0 0x7ffc1e5a6bc8 0x7f5b2c3e1e2e", nil, -1, true},
		// pinentry-curses: poll(fds, 1, 70), ncurses' escape delay.
		{"poll ms", "7 0x7ffd0e7886f0 0x1 0x46 0x0 0x0 0x0 0x7ffd0e7886a8 0x7f3a8a75c230", nil, 70 * time.Millisecond, true},
		{"poll zero", "7 0x7ffd0e7886f0 0x1 0x0 0x0 0x0 0x0 0x7ffd0e7886a8 0x7f3a8a75c230", nil, 0, true},
		// python's select.select([0, r], [], [], 3.0): pselect6 with a
		// timespec.
		{"pselect6 timespec", "270 0x4 0x7ffcf3eb8fb0 0x0 0x0 0x7ffcf3eb8ee0 0x0 0x7ffcf3eb8ed0 0x7fdeeb311954",
			map[uintptr][]byte{0x7ffcf3eb8ee0: ts(3, 0)}, 3 * time.Second, true},
		{"pselect6 none", "270 0x4 0x7ffcf3eb8fb0 0x0 0x0 0x0 0x0 0x7ffcf3eb8ed0 0x7fdeeb311954", nil, -1, true},
		// bash's readline: select(1, set, NULL, NULL, NULL).
		{"select none", "23 0x1 0x7ffe3b1f2a00 0x0 0x0 0x0 0x0 0x7ffe3b1f2998 0x7f0d9e4f1b3a", nil, -1, true},
		{"select timeval", "23 0x5 0x7ffe3b1f2a00 0x0 0x0 0x7ffe3b1f29f0 0x0 0x7ffe3b1f2998 0x7f0d9e4f1b3a",
			map[uintptr][]byte{0x7ffe3b1f29f0: ts(0, 500000)}, 500 * time.Millisecond, true},
		{"ppoll timespec", "271 0x7ffd11a0 0x2 0x7ffd1190 0x0 0x8 0x0 0x7ffd1100 0x7f00aa00", map[uintptr][]byte{0x7ffd1190: ts(1, 250000000)}, 1250 * time.Millisecond, true},
		{"ppoll none (ssh)", "271 0x55d2c1a0 0x4 0x0 0x7ffd8e5c5f60 0x8 0x0 0x7ffd8e5c5e98 0x7f3b9c71a6ad", nil, -1, true},
		{"epoll_pwait2 timespec", "441 0x3 0x7ffd0000 0x10 0x7ffd0100 0x0 0x8 0x7ffc0000 0x7f000000", map[uintptr][]byte{0x7ffd0100: ts(0, 20000000)}, 20 * time.Millisecond, true},
		{"unreadable memory", "271 0x7ffd11a0 0x2 0x7ffd1190 0x0 0x8 0x0 0x7ffd1100 0x7f00aa00", nil, 0, false},
		{"invalid nanoseconds", "271 0x7ffd11a0 0x2 0x7ffd1190 0x0 0x8 0x0 0x7ffd1100 0x7f00aa00", map[uintptr][]byte{0x7ffd1190: ts(1, 2e9)}, 0, false},
		{"huge", "271 0x7ffd11a0 0x2 0x7ffd1190 0x0 0x8 0x0 0x7ffd1100 0x7f00aa00", map[uintptr][]byte{0x7ffd1190: ts(1<<62, 0)}, 1<<63 - 1, true},
		{"read is no wait", "0 0x0 0x7ffd6a2b3c40 0x1 0x0 0x0 0x0 0x7ffd6a2b3b08 0x7f1e2a3b4c5d", nil, 0, false},
	}
	for _, tt := range tests {
		sc, err := proc.ParseSyscall([]byte(tt.line))
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		mem := func(addr uintptr, n int) ([]byte, error) {
			if b, ok := tt.mem[addr]; ok && len(b) >= n {
				return b[:n], nil
			}
			return nil, errors.New("unmapped")
		}
		got, ok := waitTimeout(sc.Nr, sc.Args, mem)
		if got != tt.want || ok != tt.ok {
			t.Errorf("%s: %v, %v; want %v, %v", tt.name, got, ok, tt.want, tt.ok)
		}
	}
}
