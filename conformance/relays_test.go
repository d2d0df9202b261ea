//go:build linux

package conformance

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// Programs driven inside relays (issue 43): a terminal inside the
// terminal, opened by script, GNU screen, tmux, expect or unbuffer. The
// kernel sees the program through the relay: a read waits with
// input_signal relay_read, judged on the inner terminal's settings, and a
// program sleeping, computing or waiting on a timer there is not waiting.

// relayed runs a command line inside a relay.
type relayed func(line string) string

// sockets numbers the multiplexers' sockets, one server per command.
var sockets atomic.Int64

// shq quotes s for a POSIX shell.
func shq(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

var (
	underScript relayed = func(line string) string { return "script -qfec " + shq(line) + " /dev/null" }
	underTmux   relayed = func(line string) string {
		return fmt.Sprintf("tmux -L ys%d-%d -f /dev/null new-session %s", os.Getpid(), sockets.Add(1), shq(line))
	}
	underScreen relayed = func(line string) string {
		return fmt.Sprintf("screen -S ys%d-%d sh -c %s", os.Getpid(), sockets.Add(1), shq(line))
	}
	underUnbuffer relayed = func(line string) string { return "unbuffer -p sh -c " + shq(line) }
	underExpect   relayed = func(line string) string {
		return "expect -c " + shq("spawn -noecho sh -c "+tclq(line)+"; interact")
	}
)

// tclq quotes s as one Tcl word.
func tclq(s string) string { return "{" + s + "}" }

// relayScript is the absolute path of a program in testdata/relays: the
// commands run in a directory of their own.
func relayScript(t *testing.T, name string) string {
	p, err := filepath.Abs(filepath.Join("testdata", "relays", name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// relayPrograms are the relayed cases: each relay with a line question, a
// password prompt, a REPL or a shell, and false friends.
func relayPrograms() []program {
	py := func(under relayed, file string, args ...string) func(*testing.T, string) string {
		return func(t *testing.T, _ string) string {
			return under(strings.Join(append([]string{"python3", relayScript(t, file)}, args...), " "))
		}
	}
	ask := []turn{{input: "ada", want: "hello ada"}}
	pass := []turn{{input: secretWord, secret: true, want: "19 characters"}}
	// A multiplexer's screen goes with its last program: a last question
	// keeps the answer on it.
	askHeld := []turn{{input: "ada", want: "hello ada", kind: "line"}, {input: "y"}}
	passHeld := []turn{{input: secretWord, secret: true, want: "19 characters", kind: "line"}, {input: "y"}}
	repl := []turn{{input: "x = 6", kind: "line"}, {input: "x * 7", want: "42", kind: "line"}, {input: "exit()"}}
	shell := []turn{{input: "echo $((6 * 7))", want: "42", kind: "line"}, {input: "exit"}}
	readS := func(under relayed) func(*testing.T, string) string {
		return func(*testing.T, string) string {
			return under(`bash -c 'read -rs -p "Token: " tok; echo; echo "${#tok} characters"; read -p "Done? " x'`)
		}
	}
	pass2 := []turn{{input: secretWord, secret: true, want: "19 characters", kind: "line"}, {input: "y"}}
	bash := func(under relayed) func(*testing.T, string) string {
		return func(*testing.T, string) string { return under("env PS1='relay$ ' bash --norc --noprofile") }
	}
	pyREPL := func(under relayed) func(*testing.T, string) string {
		return func(*testing.T, string) string { return under("python3 -q") }
	}
	ps := []program{
		// script: the issue's own cases, and more.
		{name: "script-input", needs: []string{"script", "python3"}, command: py(underScript, "ask.py"),
			kind: "line", prompt: "Your name: ", turns: ask},
		{name: "script-getpass", needs: []string{"script", "python3"}, command: py(underScript, "askpass.py"),
			kind: "password", prompt: "password for ada", turns: pass},
		{name: "script-read-s", needs: []string{"script", "bash"}, command: readS(underScript),
			kind: "password", prompt: "Token: ", turns: pass2},
		{name: "script-python-repl", needs: []string{"script", "python3"}, command: pyREPL(underScript),
			kind: "line", prompt: ">>> ", turns: repl},

		// tmux, a session of the command's own.
		{name: "tmux-bash", needs: []string{"tmux", "bash"}, command: bash(underTmux),
			kind: "line", prompt: "relay$ ", turns: shell, repliesTaken: true},
		{name: "tmux-python-repl", needs: []string{"tmux", "python3"}, command: pyREPL(underTmux),
			kind: "line", prompt: ">>> ", turns: repl},
		{name: "tmux-read-s", needs: []string{"tmux", "bash"}, command: readS(underTmux),
			kind: "password", prompt: "Token: ", turns: pass2},

		// GNU screen.
		{name: "screen-bash", needs: []string{"screen", "bash"}, command: bash(underScreen),
			kind: "line", prompt: "relay$ ", turns: shell},
		{name: "screen-python-repl", needs: []string{"screen", "python3"}, command: pyREPL(underScreen),
			kind: "line", prompt: ">>> ", turns: repl},
		{name: "screen-getpass", needs: []string{"screen", "python3"}, command: py(underScreen, "askpass.py", "--hold"),
			kind: "password", prompt: "password for ada", turns: passHeld},

		// expect and unbuffer: a sudo-like getpass behind them.
		{name: "unbuffer-getpass", needs: []string{"unbuffer", "python3"}, command: py(underUnbuffer, "askpass.py"),
			kind: "password", prompt: "password for ada", turns: pass},
		{name: "expect-getpass", needs: []string{"expect", "python3"}, command: py(underExpect, "askpass.py"),
			kind: "password", prompt: "password for ada", turns: pass},
		{name: "expect-input", needs: []string{"expect", "python3"}, command: py(underExpect, "ask.py"),
			kind: "line", prompt: "Your name: ", turns: ask},

		// Two relays deep: script in tmux.
		{name: "tmux-script-input", needs: []string{"tmux", "script", "python3"},
			command: func(t *testing.T, _ string) string {
				return underTmux(underScript("python3 " + relayScript(t, "ask.py") + " --hold"))
			},
			kind: "line", prompt: "Your name: ", turns: askHeld},

		// False friends inside relays: a prompt on screen, a sleep, a
		// timer or a computation awaited.
		{name: "script-sleep", needs: []string{"script", "python3"}, notWaiting: true, want: "slept", command: py(underScript, "sleeper.py")},
		{name: "script-select-timer", needs: []string{"script", "python3"}, notWaiting: true, want: "timed out", command: py(underScript, "selecttimer.py")},
		{name: "script-compute", needs: []string{"script", "python3"}, notWaiting: true, want: "computed", command: py(underScript, "compute.py")},
		{name: "tmux-sleep", needs: []string{"tmux", "python3"}, notWaiting: true, want: "[exited]", command: py(underTmux, "sleeper.py")},
		{name: "tmux-select-timer", needs: []string{"tmux", "python3"}, notWaiting: true, want: "[exited]", command: py(underTmux, "selecttimer.py")},
		{name: "screen-sleep", needs: []string{"screen", "python3"}, notWaiting: true, want: "[screen is terminating]", command: py(underScreen, "sleeper.py")},
		{name: "screen-compute", needs: []string{"screen", "python3"}, notWaiting: true, want: "[screen is terminating]", command: py(underScreen, "compute.py")},
		{name: "unbuffer-sleep", needs: []string{"unbuffer", "python3"}, notWaiting: true, want: "slept", command: py(underUnbuffer, "sleeper.py")},
	}
	for i := range ps {
		if !ps[i].notWaiting {
			ps[i].signal = "relay_read"
		}
	}
	return ps
}

// Spec: issue 43 items 1, 2, 4 and 5: "the probe follows relays"; "under screen and tmux ... a shell prompt, a REPL and a password prompt in the active window wait with kernel evidence and the right input_kind; what the agent writes reaches the active window"; "a program sleeping, computing or waiting on a timer inside a relay is not waiting; the false-friend tests run inside script, screen and tmux too"; "at least 10 relayed cases ... with per-evidence latency".
func TestRealProgramsRelayed(t *testing.T) {
	runPrograms(t, relayPrograms())
}

// Spec: issue 43 item 4: "the false-friend tests run inside script, screen and tmux too".
func TestFalseFriendsRelayed(t *testing.T) {
	under := []struct {
		name  string
		needs string
		wrap  relayed
		want  string // what a multiplexer leaves of the output at the end
	}{
		{"script", "script", underScript, ""},
		{"tmux", "tmux", underTmux, "[exited]"},
		{"screen", "screen", underScreen, "[screen is terminating]"},
	}
	var ps []program
	for _, p := range append(drivenPrograms(), secondPrograms()...) {
		if !p.notWaiting || p.textOnly {
			continue
		}
		for _, u := range under {
			q := p
			q.name = u.name + "-" + p.name
			q.needs = append([]string{u.needs}, p.needs...)
			q.command = func(t *testing.T, dir string) string { return u.wrap(p.command(t, dir)) }
			if u.want != "" {
				q.want = u.want
			}
			ps = append(ps, q)
		}
	}
	if len(ps) == 0 {
		t.Fatal("no false friends to run")
	}
	runPrograms(t, ps)
}
