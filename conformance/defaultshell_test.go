//go:build unix

package conformance

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// needBash skips a test of the default shell where bash is not installed
// (the server then runs /bin/sh, which TestDefaultShellFallback covers).
func needBash(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skipf("bash not installed")
	}
}

// stillWaiting fails unless the answer is of a running program that waits
// for input again.
func stillWaiting(t *testing.T, r result, after string) {
	t.Helper()
	if st := r.str("status"); st != "backgrounded" && st != "running" || r.m["waiting_for_input"] != true {
		t.Fatalf("after %s, want the program waiting for input again; answer: %s", after, r.text)
	}
}

// interruptThenExit runs command, which must come to wait for input, sends
// it a Ctrl-C through its terminal, waits for its prompt again, and types
// quit: the answer to that last line.
func interruptThenExit(t *testing.T, s *server, command, quit string) result {
	t.Helper()
	r := s.exec(command, map[string]any{"yield_ms": longYield})
	stillWaiting(t, r, "the start")
	id := r.str("process_id")
	intr := s.call("write", map[string]any{"process_id": id, "input": "", "keys": []string{"C-c"}, "yield_ms": longYield})
	stillWaiting(t, intr, "Ctrl-C")
	return s.reply(id, quit)
}

// A program that handles Ctrl-C and then exits 0 is reported with its own
// exit code, as bash and tmux report it, whether it is the whole command or
// the first of a list (whose rest then runs). Under dash, the shell noted
// the SIGINT, waited for the program and then killed itself with it, so
// the answer was exit_code -2, signal SIGINT, and "echo done" never ran.
//
// Spec: issue 32 item 1: "the exit code an exec reports is the command's own as bash and tmux report it, also after Ctrl-C".
func TestCtrlCKeepsTheExitCode(t *testing.T) {
	needBash(t)
	type prog struct {
		name, command, quit, skip string
	}
	progs := []prog{{"repl", `"$` + helperEnv + `" ys-helper repl`, "exit", ""}}
	if _, err := exec.LookPath("python3"); err == nil {
		progs = append(progs, prog{"python3", "python3 -q", "exit()", ""})
	} else {
		progs = append(progs, prog{"python3", "", "", "python3 not installed"})
	}
	forEachProtocol(t, nil, func(t *testing.T, s *server) {
		for _, p := range progs {
			t.Run(p.name, func(t *testing.T) {
				if p.skip != "" {
					t.Skip(p.skip)
				}
				t.Run("alone", func(t *testing.T) {
					end := interruptThenExit(t, s, p.command, p.quit)
					if end.str("status") != "completed" || !end.has("exit_code") || end.num("exit_code") != 0 || end.str("signal") != "" {
						t.Errorf("want completed, exit_code 0, no signal; answer: %s", end.text)
					}
				})
				t.Run("then echo", func(t *testing.T) {
					end := interruptThenExit(t, s, p.command+"; echo done-after", p.quit)
					if end.str("status") != "completed" || end.num("exit_code") != 0 || end.str("signal") != "" ||
						!strings.Contains(end.str("stdout"), "done-after") {
						t.Errorf("want the list to go on after the program's own exit 0; answer: %s", end.text)
					}
				})
			})
		}
	})
}

// A program that dies of Ctrl-C is reported as killed by SIGINT, alone or
// first in a list: bash ends with the signal its program died of and runs
// nothing more.
func TestCtrlCKillsWhatDiesOfIt(t *testing.T) {
	needBash(t)
	forEachProtocol(t, nil, func(t *testing.T, s *server) {
		for _, command := range []string{"sleep 30", "sleep 30; echo not-reached"} {
			t.Run(command, func(t *testing.T) {
				r := s.exec(command, map[string]any{"yield_ms": 50}).mustStatus(t, "backgrounded")
				end := s.call("write", map[string]any{"process_id": r.str("process_id"), "input": "", "keys": []string{"C-c"}, "yield_ms": longYield})
				if end.str("status") != "completed" || end.str("signal") != "SIGINT" || end.num("exit_code") != -2 ||
					strings.Contains(end.str("stdout"), "not-reached") {
					t.Errorf("want completed, signal SIGINT, exit_code -2; answer: %s", end.text)
				}
			})
		}
	})
}

// The default shell is bash, run with neither ~/.bashrc (which a
// non-interactive bash reads when it thinks sshd started it: SSH_CLIENT set
// and SHLVL unset) nor a profile. The user's own BASH_ENV, in the server's
// environment, is honoured as by every "bash -c" they run.
func TestDefaultShellIsBash(t *testing.T) {
	needBash(t)
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, ".bashrc"), []byte("echo BASHRC-RAN\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".bash_profile"), []byte("echo PROFILE-RAN\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	benv := filepath.Join(home, "bash_env")
	if err := os.WriteFile(benv, []byte("export YS_FROM_BASH_ENV=set\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"HOME=" + home, "SSH_CLIENT=192.0.2.1 50000 22", "SHLVL=", "BASH_ENV=" + benv}
	forEachProtocolInTurn(t, env, func(t *testing.T, s *server) {
		for _, tty := range []bool{true, false} {
			r := s.exec(`echo "bash=${BASH_VERSION:+yes} env=$YS_FROM_BASH_ENV"`, map[string]any{"tty": tty}).mustStatus(t, "completed")
			out := r.str("stdout")
			if !strings.Contains(out, "bash=yes env=set") || strings.Contains(out, "RAN") {
				t.Errorf("tty %t: stdout = %q, want bash, BASH_ENV read, no start-up file", tty, out)
			}
		}
		// bash's own message, which says "not found" as dash's did.
		r := s.exec("no-such-command-ys32", map[string]any{"tty": false}).mustStatus(t, "completed")
		if r.num("exit_code") != 127 || !strings.Contains(r.str("stderr"), "not found") {
			t.Errorf("a missing command: %s", r.text)
		}
	})
}

// Where bash is missing (here forced by YIELDSHELL_SHELL=/bin/sh, the
// fallback's value), commands run under /bin/sh as before.
func TestDefaultShellFallback(t *testing.T) {
	forEachProtocol(t, []string{"YIELDSHELL_SHELL=/bin/sh"}, func(t *testing.T, s *server) {
		r := s.exec(`echo "bash=${BASH_VERSION:+yes}"; exit 3`, nil).mustStatus(t, "completed")
		if r.str("stdout") != "bash=\n" || r.num("exit_code") != 3 {
			t.Errorf("want /bin/sh (no BASH_VERSION) and exit code 3: %s", r.text)
		}
		r = s.exec("no-such-command-ys32", map[string]any{"tty": false}).mustStatus(t, "completed")
		if r.num("exit_code") != 127 || !strings.Contains(r.str("stderr"), "not found") {
			t.Errorf("a missing command: %s", r.text)
		}
		r = s.exec("sleep 30", map[string]any{"yield_ms": 50}).mustStatus(t, "backgrounded")
		end := s.call("write", map[string]any{"process_id": r.str("process_id"), "input": "", "keys": []string{"C-c"}, "yield_ms": longYield})
		if end.str("status") != "completed" || end.str("signal") != "SIGINT" {
			t.Errorf("Ctrl-C of sleep: %s", end.text)
		}
		// The agent may still name any shell.
		if _, err := exec.LookPath("bash"); err == nil {
			r = s.exec(`echo "bash=${BASH_VERSION:+yes}"`, map[string]any{"shell": "bash"}).mustStatus(t, "completed")
			if r.str("stdout") != "bash=yes\n" {
				t.Errorf("shell bash under a /bin/sh default: %s", r.text)
			}
		}
	})
}
