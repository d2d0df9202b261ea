//go:build unix

package conformance

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Spec: 0.4.0 write: "Write text input to the standard input (stdin) of a running process."
func TestWriteDrivesAProcess(t *testing.T) {
	forEachProtocol(t, nil, func(t *testing.T, s *server) {
		for _, tty := range []bool{true, false} {
			r := s.exec(helper("echo-lines"), map[string]any{"yield_ms": 0, "tty": tty, "stdin": "first\n"})
			id := r.str("process_id")
			s.readUntil(id, "got: first")
			w := s.call("write", map[string]any{"process_id": id, "input": "second", "newline": true})
			if w.m["ok"] != true || w.isError {
				t.Fatalf("write: %s", w.text)
			}
			s.readUntil(id, "got: second")
			w = s.call("write", map[string]any{"process_id": id, "input": "", "close_stdin": true})
			if w.m["ok"] != true {
				t.Fatalf("write close_stdin: %s", w.text)
			}
			done := s.call("wait", map[string]any{"process_id": id, "timeout_ms": 10000}).mustStatus(t, "completed")
			if !strings.Contains(done.str("stdout"), "eof") {
				t.Errorf("tty=%v: after close_stdin stdout = %q, want eof", tty, done.str("stdout"))
			}
			w = s.call("write", map[string]any{"process_id": id, "input": "late"})
			if w.m["ok"] != false || !w.isError || !strings.Contains(w.str("error"), "not running") {
				t.Errorf("write to an exited process: %s", w.text)
			}
		}
	})
}

// Spec: 0.4.0 wait: "If the wait timeout expires, wait returns the current status but does not kill the process."
func TestWaitDoesNotKill(t *testing.T) {
	forEachProtocol(t, nil, func(t *testing.T, s *server) {
		id := s.exec("sleep 30", map[string]any{"yield_ms": 0}).str("process_id")
		start := time.Now()
		w := s.call("wait", map[string]any{"process_id": id, "timeout_ms": 300}).mustStatus(t, "running")
		if el := time.Since(start); el < 300*time.Millisecond {
			t.Errorf("wait returned after %v, before its timeout", el)
		}
		if !w.isNull("exit_code") || !w.has("next_seq") || w.str("yield_reason") != "deadline" {
			t.Errorf("wait answer: %s", w.text)
		}
		s.call("read", map[string]any{"process_id": id}).mustStatus(t, "running")
	})
}

// Spec: 0.4.0 wait: "Block execution until the process exits or the wait timeout expires."
func TestWaitReturnsForFinished(t *testing.T) {
	forEachProtocol(t, nil, func(t *testing.T, s *server) {
		id := s.exec("echo hello", nil).mustStatus(t, "completed").str("process_id")
		start := time.Now()
		w := s.call("wait", map[string]any{"process_id": id, "timeout_ms": 30000}).mustStatus(t, "completed")
		if time.Since(start) > 2*time.Second || !strings.Contains(w.str("stdout"), "hello") {
			t.Errorf("wait on a finished process: %s", w.text)
		}
	})
}

// A process that keeps the terminal (or the pipes) open after the command
// exits, but is no longer part of it (it left the group and dropped the
// YIELDSHELL_TAG), must not hold exec or wait hostage. Descendants that are
// still the command's keep it running: descendants_test.go.
//
// Spec: 0.4.0 wait: "If descendant processes keep inherited pipes open after the tracked process exits, the server closes its drain tasks so wait can complete without blocking indefinitely."
func TestDescendantHoldingOutput(t *testing.T) {
	forEachProtocol(t, nil, func(t *testing.T, s *server) {
		for _, tty := range []bool{true, false} {
			pidFile := filepath.Join(t.TempDir(), "pid")
			killPidFile(t, pidFile)
			// The parent waits until the grandchild has left its session:
			// before that, the hang-up at the parent's exit would end it too.
			cmd := fmt.Sprintf(`env -u YIELDSHELL_TAG setsid sh -c 'echo $$ > %[1]s; exec sleep 30' & while [ ! -s %[1]s ]; do :; done; echo parent-done`, pidFile)
			start := time.Now()
			r := s.exec(cmd, map[string]any{"yield_ms": 20000, "tty": tty}).mustStatus(t, "completed")
			if el := time.Since(start); el > 5*time.Second {
				t.Errorf("tty=%v: exec took %v with a descendant holding the output", tty, el)
			}
			if !strings.Contains(r.str("stdout"), "parent-done") || len(r.m["notes"].([]any)) == 0 {
				t.Errorf("tty=%v: stdout = %q", tty, r.str("stdout"))
			}
		}
	})
}

// Spec: 0.4.0 Platform Support: "allowing signals (SIGTERM/SIGKILL) to target the entire process group."
func TestStop(t *testing.T) {
	forEachProtocol(t, nil, func(t *testing.T, s *server) {
		r := s.exec("sleep 60 & sleep 60 & wait", map[string]any{"yield_ms": 0})
		id, pid := r.str("process_id"), int(r.num("pid"))
		eventually(t, 5*time.Second, "the group's sleeps to start", func() bool { return len(groupMembers(pid)) >= 3 })
		st := s.call("stop", map[string]any{"process_id": id})
		if st.m["stopped"] != true || st.isError || !st.has("error") || !st.isNull("error") || st.str("signal") != "SIGTERM" {
			t.Fatalf("stop: %s", st.text)
		}
		if m := groupMembers(pid); len(m) > 0 {
			t.Errorf("stop left members of the group alive: %v", m)
		}
		rd := s.call("read", map[string]any{"process_id": id}).mustStatus(t, "stopped")
		if rd.str("ended_by") != "stop" {
			t.Errorf("ended_by = %q, want stop", rd.str("ended_by"))
		}
		again := s.call("stop", map[string]any{"process_id": id})
		if again.m["stopped"] != false || !strings.Contains(again.str("error"), "not running") {
			t.Errorf("second stop: %s", again.text)
		}
	})
}

// Spec: 0.4.0 stop: "signal (string, default: \"SIGTERM\"): OS signal to send" and "force_after_ms ... Grace period before escalating to force kill (SIGKILL)."
func TestStopSignals(t *testing.T) {
	forEachProtocol(t, nil, func(t *testing.T, s *server) {
		id := s.exec("sleep 60", map[string]any{"yield_ms": 0}).str("process_id")
		bad := s.call("stop", map[string]any{"process_id": id, "signal": "NOPE"})
		if !bad.isError || bad.m["stopped"] != false || !strings.Contains(bad.str("error"), "SIGTERM") {
			t.Errorf("unknown signal: %s", bad.text)
		}
		s.call("read", map[string]any{"process_id": id}).mustStatus(t, "running")
		st := s.call("stop", map[string]any{"process_id": id, "signal": "int", "force_after_ms": 2000})
		if st.m["stopped"] != true || st.str("signal") != "SIGINT" {
			t.Errorf("stop SIGINT: %s", st.text)
		}

		id = s.exec(helper("ignore-term"), map[string]any{"yield_ms": 0}).str("process_id")
		s.readUntil(id, "ready")
		start := time.Now()
		st = s.call("stop", map[string]any{"process_id": id, "force_after_ms": 200})
		if st.m["stopped"] != true || st.m["forced"] != true {
			t.Errorf("stop of a SIGTERM-ignoring process: %s", st.text)
		}
		if el := time.Since(start); el > 3*time.Second {
			t.Errorf("stop with force_after_ms 200 took %v", el)
		}
		if rd := s.call("read", map[string]any{"process_id": id}); rd.str("signal") != "SIGKILL" {
			t.Errorf("signal = %q, want SIGKILL", rd.str("signal"))
		}
	})
}

// Spec: 0.4.0 ps: "include_completed ... If false, finished/stopped processes are excluded"; cleanup: "Prune completed or stopped process records".
func TestPsAndCleanup(t *testing.T) {
	forEachProtocol(t, nil, func(t *testing.T, s *server) {
		s.exec("echo one", map[string]any{"name": "first"})
		s.exec("echo two", map[string]any{"name": "second"})
		running := s.exec("sleep 30", map[string]any{"yield_ms": 0, "name": "sleeper"}).str("process_id")
		ps := s.call("ps", nil)
		procs := ps.m["processes"].([]any)
		if len(procs) != 3 {
			t.Fatalf("ps lists %d processes, want 3", len(procs))
		}
		newest := procs[0].(map[string]any)
		if newest["process_id"] != running || newest["name"] != "sleeper" || newest["status"] != "running" {
			t.Errorf("ps[0] = %v, want the newest (sleeper, running)", newest)
		}
		for _, k := range []string{"process_id", "pid", "name", "command", "cwd", "status", "exit_code", "signal",
			"started_at", "ended_at", "duration_ms", "stdout_bytes", "stderr_bytes"} {
			if _, ok := newest[k]; !ok {
				t.Errorf("ps entry lacks %q", k)
			}
		}
		if last := procs[2].(map[string]any); last["stdout_bytes"] != float64(len("one\n")) || last["ended_at"] == nil {
			t.Errorf("ps[2] = %v", last)
		}
		if n := len(s.call("ps", map[string]any{"include_completed": false}).m["processes"].([]any)); n != 1 {
			t.Errorf("include_completed=false lists %d, want 1", n)
		}
		if n := len(s.call("ps", map[string]any{"limit": 2}).m["processes"].([]any)); n != 2 {
			t.Errorf("limit=2 lists %d", n)
		}
		if r := s.call("cleanup", nil); r.num("removed") != 0 {
			t.Errorf("cleanup with the 1 h defaults removed %v", r.m["removed"])
		}
		if r := s.call("cleanup", map[string]any{"completed_older_than_ms": 0, "stopped_older_than_ms": 0}); r.num("removed") != 2 {
			t.Errorf("cleanup(0, 0) removed %v, want 2 (never the running one)", r.m["removed"])
		}
		if n := len(s.call("ps", nil).m["processes"].([]any)); n != 1 {
			t.Errorf("after cleanup ps lists %d, want 1", n)
		}
	})
}

// When the client goes away (stdin EOF) the server ends every process it
// started before it exits.
//
// Spec: DESIGN Ending: "On stdin EOF or SIGTERM/SIGINT/SIGHUP the server ends every process it started before it exits."
func TestShutdownOnEOF(t *testing.T) {
	t.Parallel()
	for _, v := range protocols {
		t.Run(protoName(v), func(t *testing.T) {
			t.Parallel() // each waits out its own server's kill grace
			s := start(t, v)
			r := s.exec(helper("ignore-term"), map[string]any{"yield_ms": 0})
			pid := int(r.num("pid"))
			s.readUntil(r.str("process_id"), "ready")
			start := time.Now()
			if err := s.cs.Close(); err != nil {
				t.Logf("close: %v", err)
			}
			if el := time.Since(start); el > 4*time.Second {
				t.Errorf("server took %v to exit", el)
			}
			if alive(pid) || len(groupMembers(pid)) > 0 {
				t.Errorf("process %d survived the server", pid)
			}
		})
	}
}

// Spec: DESIGN Errors: "Bad configuration fails at start-up with a message naming the variable, the bad value and the valid ones."
func TestStartup(t *testing.T) {
	// Help and version go to stdout (issue 41 item 8).
	stdout := func(arg string) (string, error) {
		b, err := newCmd(t, arg).Output()
		return string(b), err
	}
	out, err := stdout("--help")
	if err != nil {
		t.Fatalf("--help: %v\n%s", err, out)
	}
	for _, v := range []string{"YIELDSHELL_DEFAULT_CWD", "YIELDSHELL_ALLOWED_CWDS", "YIELDSHELL_MAX_OUTPUT_BYTES",
		"YIELDSHELL_MAX_PROCESSES", "YIELDSHELL_DEFAULT_YIELD_MS", "YIELDSHELL_MAX_YIELD_MS", "YIELDSHELL_DEFAULT_TIMEOUT_MS",
		"YIELDSHELL_DENY_COMMAND_REGEX", "YIELDSHELL_ALLOW_COMMAND_REGEX", "YIELDSHELL_REDACT_ENV_REGEX",
		"MCP_YIELDSHELL_BLOCKED_SIDE_EFFECTS"} {
		if !strings.Contains(out, v) {
			t.Errorf("--help does not list %s", v)
		}
	}
	if out, err := stdout("--version"); err != nil || !strings.HasPrefix(out, "yieldshell ") {
		t.Errorf("--version: %v %q", err, out)
	}
	out, err = runBin(t, []string{"MCP_YIELDSHELL_BLOCKED_SIDE_EFFECTS=TELEPORT_COWS"})
	if err == nil || !strings.Contains(out, "MCP_YIELDSHELL_BLOCKED_SIDE_EFFECTS") || !strings.Contains(out, "TELEPORT_COWS") {
		t.Errorf("bad configuration: err %v, output %q", err, out)
	}
}

// runBin runs the binary with empty stdin and returns its stderr.
func runBin(t *testing.T, env []string, args ...string) (string, error) {
	t.Helper()
	cmd := newCmd(t, args...)
	cmd.Env = append(os.Environ(), env...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err := cmd.Run()
	return stderr.String(), err
}
