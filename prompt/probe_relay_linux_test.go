package prompt

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/yieldshell/yieldshell/internal/poll"
	"github.com/yieldshell/yieldshell/internal/proc"
)

// relayCmd is a relay that runs line under a terminal of its own, and
// what stops it.
type relayCmd struct {
	name string
	need []string
	// rawInner: the relay starts its terminal with echo off (expect's
	// spawn), so a plain read is seen with echo off there.
	rawInner bool
	argv     func(t *testing.T, line string) []string
	clean    func(t *testing.T) // stops a daemonized server (nil: none)
}

// relays are the relays the probe follows, each set up as a command would
// run it; a multiplexer's server gets a socket of the test's own.
func relays(t *testing.T) []relayCmd {
	sock := fmt.Sprintf("ys-probe-%d", os.Getpid())
	return []relayCmd{
		{name: "script", need: []string{"script"}, argv: func(t *testing.T, line string) []string {
			return []string{"script", "-qfec", line, "/dev/null"}
		}},
		{name: "unbuffer", need: []string{"unbuffer"}, rawInner: true, argv: func(t *testing.T, line string) []string {
			return []string{"unbuffer", "-p", "sh", "-c", line}
		}},
		{name: "tmux", need: []string{"tmux"}, argv: func(t *testing.T, line string) []string {
			return []string{"tmux", "-L", sock, "-f", "/dev/null", "new-session", line}
		}, clean: func(t *testing.T) { _ = exec.Command("tmux", "-L", sock, "kill-server").Run() }},
		{name: "screen", need: []string{"screen"}, argv: func(t *testing.T, line string) []string {
			return []string{"screen", "-S", sock, "sh", "-c", line}
		}, clean: func(t *testing.T) { _ = exec.Command("screen", "-S", sock, "-X", "quit").Run() }},
	}
}

// runRelayed starts argv as the server runs a command: in a terminal and
// session of its own, with a tag in its environment.
func runRelayed(t *testing.T, argv []string) Input {
	t.Helper()
	return startTTY(t, fmt.Sprintf("YS_PROBE_TAG=%d", time.Now().UnixNano()), nil, argv[0], argv[1:]...).in
}

// inspectUntil probes in until want says the answer is the awaited one, or
// a deadline passes; the terminal's foreground group is read as the
// session reads it.
func inspectUntil(in Input, within time.Duration, want func(Probe) bool) (Probe, bool) {
	pr := NewProber()
	var got Probe
	ok := poll.Within(within, func() bool {
		st, err := readStat(in.Session)
		if err != nil {
			return false
		}
		in.Pgrp = st
		got = pr.Inspect(in)
		return want(got)
	})
	return got, ok
}

// readStat returns the foreground group of pid's terminal.
func readStat(pid int) (int, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	var pgrp int
	_, err = fmt.Sscan(f[5], &pgrp)
	return pgrp, err
}

// Spec: issue 43 item 1: "the readers of that inner terminal are examined as the command's own — their reads, echo and line mode judged on the inner terminal's settings"; item 4: "a program sleeping ... inside a relay is not waiting".
func TestInspectThroughRelays(t *testing.T) {
	if testing.Short() {
		t.Skip("starts real relays")
	}
	programs := []struct {
		name, line string
		want       Activity
		echo       bool // when Reading: the inner terminal's echo
	}{
		{"read", "read x", Reading, true},
		{"read-s", "stty -echo; read x", Reading, false},
		{"sleep", "sleep 3600", Busy, false},
	}
	for _, rl := range relays(t) {
		t.Run(rl.name, func(t *testing.T) {
			for _, p := range rl.need {
				if _, err := exec.LookPath(p); err != nil {
					t.Skipf("%s is not installed", p)
				}
			}
			for _, p := range programs {
				t.Run(p.name, func(t *testing.T) {
					in := runRelayed(t, rl.argv(t, p.line))
					if rl.clean != nil {
						t.Cleanup(func() { rl.clean(t) })
					}
					got, ok := inspectUntil(in, 10*time.Second, func(g Probe) bool {
						return g.Activity == p.want && g.Relay != nil && (p.want != Reading || g.Relay.ModesKnown && g.Relay.Echo == (p.echo && !rl.rawInner))
					})
					if !ok {
						t.Fatalf("%s under %s: %s relay %+v, want %s through a relay (echo %v)", p.line, rl.name, got.Activity, got.Relay, p.want, p.echo)
					}
					if p.want == Busy {
						// It stays so: no read is seen later either.
						if got, ok := inspectUntil(in, 500*time.Millisecond, func(g Probe) bool { return g.Activity != Busy }); ok {
							t.Errorf("%s under %s: later %s, want busy", p.line, rl.name, got.Activity)
						}
					}
				})
			}
		})
	}
}

// A program inside a relay that printed its line and then waits on a
// timer is busy, not in a timed wait, while what it printed has not
// reached the relay: the decision would otherwise take the timer for one
// armed before the line (under load, script-select-timer was reported
// waiting as a quiet prompt once in 20 runs).
func TestInspectRelayWithUnreadOutputIsBusy(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	in := startTTY(t, fmt.Sprintf("YS_PROBE_TAG=%d", time.Now().UnixNano()), []string{childEnv + "=lazyrelay"}, exe).in
	// Wait until the program inside sleeps in its timed select.
	inSelect := poll.Within(10*time.Second, func() bool {
		// A child is listed under the thread that made it.
		tids, _ := proc.Tasks(in.Session)
		var inner int
		for _, tid := range tids {
			b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", in.Session, tid))
			if _, err := fmt.Sscan(string(b), &inner); err == nil {
				break
			}
		}
		if inner == 0 {
			return false
		}
		sc, err := proc.ReadSyscall(inner, inner)
		return err == nil && classify(sc.Nr) == scSelect && sleeping(Task{Pid: inner, Tid: inner})
	})
	if !inSelect {
		t.Fatal("the program inside never reached its select")
	}
	got, ok := inspectUntil(in, 10*time.Second, func(g Probe) bool { return g.Relay != nil })
	if !ok {
		t.Fatalf("never seen through the relay: %+v", got)
	}
	if got.Activity != Busy || got.Timed {
		t.Fatalf("%+v while its output waits unread in the relay, want busy, not a timed wait", got)
	}
}
