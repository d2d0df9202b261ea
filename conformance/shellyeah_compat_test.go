//go:build unix

package conformance

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// Behaviours of the shell-yeah toolset that the peer's own clients rely on
// (issue 17). Each test names the behaviour it checks.

// shellYeah starts a server with the shell-yeah toolset.
func shellYeah(t *testing.T, env ...string) *server {
	t.Helper()
	return start(t, "", append([]string{"YIELDSHELL_TOOLSET=shell-yeah"}, env...)...)
}

// "Zod strips unknown arguments silently": the peer's clients send
// arguments its tools never declared. They are accepted and named.
func TestShellYeahAcceptsAndNamesUnknownArguments(t *testing.T) {
	s := shellYeah(t)
	st := s.call("start_shell", map[string]any{"command": "sleep", "args": []string{"30"}, "workingDirectory": t.TempDir(),
		"label": "sleeper", "retry_count": 2, "color": "blue"})
	if st.isError || st.str("status") != "running" || !slices.Equal(strs(st.m["ignored_arguments"]), []string{"color", "retry_count"}) {
		t.Errorf("start_shell with unknown arguments: %s", st.text)
	}
	c := s.call("check_shell", map[string]any{"label": "sleeper", "verbose": true})
	if c.isError || !slices.Equal(strs(c.m["ignored_arguments"]), []string{"verbose"}) {
		t.Errorf("check_shell with an unknown argument: %s", c.text)
	}
	if h := s.call("health_check", map[string]any{"x": 1}); h.isError || !slices.Equal(strs(h.m["ignored_arguments"]), []string{"x"}) {
		t.Errorf("health_check with an unknown argument: %s", h.text)
	}
	if c := s.call("check_shell", map[string]any{"label": "sleeper"}); c.has("ignored_arguments") {
		t.Errorf("check_shell without unknown arguments names some: %s", c.text)
	}
}

// The peer's clients pass verification_pattern and verification_timeout_ms
// to start_shell, meaning "answer once this appears".
func TestShellYeahStartShellVerifiesPattern(t *testing.T) {
	s := shellYeah(t)
	st := s.call("start_shell", map[string]any{"command": `"$YS_HELPER_BIN"`, "args": []string{"ys-helper", "devserver", "300", devURL},
		"workingDirectory": t.TempDir(), "label": "web", "verification_pattern": "^ready$", "verification_timeout_ms": 20000})
	if st.isError || st.m["verified"] != true || st.m["isVerificationEnabled"] != true || st.str("verificationPattern") != "^ready$" ||
		st.num("verificationTimeoutMs") != 20000 || !slices.Contains(strs(st.m["shellLogs"]), "ready") || st.has("ignored_arguments") {
		t.Errorf("start_shell with verification_pattern: %s", st.text)
	}
	bad := s.call("start_shell", map[string]any{"command": "true", "workingDirectory": t.TempDir(), "verification_pattern": "("})
	if !bad.isError || bad.str("status") != "error" {
		t.Errorf("start_shell with an invalid verification_pattern: %s", bad.text)
	}
}

// strs converts a decoded JSON array of strings.
func strs(v any) []string {
	a, _ := v.([]any)
	out := make([]string, 0, len(a))
	for _, e := range a {
		s, _ := e.(string)
		out = append(out, s)
	}
	return out
}

// The peer's clients parse list_shells' text as a bare array; every entry
// has a log_hint.
func TestShellYeahListShellsTextIsBareArray(t *testing.T) {
	s := shellYeah(t)
	if l := s.call("list_shells", nil); strings.TrimSpace(l.text) != "[]" {
		t.Errorf("list_shells with no shells: %s", l.text)
	}
	s.call("start_shell", map[string]any{"command": "echo one; echo two; echo three; sleep 30", "workingDirectory": t.TempDir(), "label": "counter"})
	l := s.call("list_shells", map[string]any{"log_lines": 2})
	var entries []map[string]any
	if err := json.Unmarshal([]byte(l.text), &entries); err != nil || len(entries) != 1 {
		t.Fatalf("list_shells text is not a one-entry array (%v): %s", err, l.text)
	}
	e := entries[0]
	if e["label"] != "counter" || !slices.Equal(strs(e["logs"]), []string{"two", "three"}) || e["log_hint"] != "Showing 2 lines; 1 older stored." {
		t.Errorf("list_shells entry: %v", e)
	}
	if shells, _ := l.m["shells"].([]any); len(shells) != 1 {
		t.Errorf("list_shells structured content: %v", l.m)
	}
	if l := s.call("list_shells", nil); !strings.Contains(l.text, `"log_hint":"3 lines stored; log_lines shows them."`) {
		t.Errorf("list_shells without log_lines: %s", l.text)
	}
}

// The start answers always carry toolLogs (what the server did),
// isVerificationEnabled and ai_instructions, whatever the host.
func TestShellYeahStartAnswerCarriesToolLogsAndInstructions(t *testing.T) {
	s := shellYeah(t)
	st := s.call("start_shell", map[string]any{"command": "sleep", "args": []string{"30"}, "workingDirectory": t.TempDir(), "label": "nap"})
	logs := strings.Join(strs(st.m["toolLogs"]), "\n")
	if st.isError || !strings.Contains(logs, fmt.Sprintf("pid %d", int(st.num("pid")))) || !strings.Contains(logs, "Status: running.") ||
		st.m["isVerificationEnabled"] != false || st.str("ai_instructions") == "" {
		t.Errorf("start_shell: %s", st.text)
	}
	r := s.call("restart_shell", map[string]any{"label": "nap"})
	if logs := strs(r.m["toolLogs"]); r.isError || len(logs) < 2 || logs[0] != fmt.Sprintf("Stopped the previous run (pid %d).", int(st.num("pid"))) ||
		r.str("ai_instructions") == "" || !r.has("isVerificationEnabled") {
		t.Errorf("restart_shell: %s", r.text)
	}
}

// stop_all_shells counts the shells it had nothing to stop.
func TestShellYeahStopAllCountsSkipped(t *testing.T) {
	s := shellYeah(t)
	wd := t.TempDir()
	s.call("start_shell", map[string]any{"command": "true", "workingDirectory": wd, "label": "done"})
	s.call("start_shell", map[string]any{"command": "sleep 30", "workingDirectory": wd, "label": "nap"})
	sa := s.call("stop_all_shells", nil)
	if sa.isError || sa.num("stopped_count") != 1 || sa.num("skipped_count") != 1 || sa.num("error_count") != 0 {
		t.Errorf("stop_all_shells: %s", sa.text)
	}
}

// A shell a signal ended has exitCode null and the signal's name, as a
// Node client expects of a child process; exit statuses stay numbers.
func TestShellYeahSignalEndedShellHasNullExitCode(t *testing.T) {
	s := shellYeah(t)
	wd := t.TempDir()
	s.call("start_shell", map[string]any{"command": "sleep 30", "workingDirectory": wd, "label": "nap"})
	if sp := s.call("stop_shell", map[string]any{"label": "nap"}); sp.isError || !sp.isNull("exitCode") {
		t.Errorf("stop_shell: %s", sp.text)
	}
	if c := s.call("check_shell", map[string]any{"label": "nap"}); c.str("status") != "stopped" || !c.isNull("exitCode") || c.str("signal") != "SIGTERM" {
		t.Errorf("check_shell after stop: %s", c.text)
	}
	s.call("start_shell", map[string]any{"command": "exit 4", "workingDirectory": wd, "label": "four"})
	if c := s.call("check_shell", map[string]any{"label": "four"}); c.str("status") != "crashed" || c.num("exitCode") != 4 || !c.isNull("signal") {
		t.Errorf("check_shell after exit 4: %s", c.text)
	}
}

// check_shell returns the lines printed since the previous check, as the
// peer's polling clients expect (never the same line twice), and its
// message agrees with isProbablyAwaitingInput.
func TestShellYeahCheckShellReturnsOnlyNewLines(t *testing.T) {
	s := shellYeah(t)
	wd := t.TempDir()
	s.call("start_shell", map[string]any{"command": `echo one; echo two; read a; echo "got $a"; sleep 30`, "workingDirectory": wd, "label": "r"})
	eventually(t, 10*time.Second, "both lines to be logged", func() bool {
		c := s.call("check_shell", map[string]any{"label": "r", "log_lines": 0})
		return strings.Contains(c.str("hint"), "2 new log lines")
	})
	if c := s.call("check_shell", map[string]any{"label": "r"}); !slices.Equal(strs(c.m["logs"]), []string{"one", "two"}) ||
		c.str("hint") != "Returned all 2 new log lines since last check." || c.str("message") != "No notable events since last check." {
		t.Errorf("first check: %s", c.text)
	}
	if c := s.call("check_shell", map[string]any{"label": "r"}); len(strs(c.m["logs"])) != 0 || c.str("hint") != "No new log lines since last check." {
		t.Errorf("second check: %s", c.text)
	}
	in := s.call("send_input", map[string]any{"label": "r", "input": "hello"})
	if logs := strs(in.m["logs"]); slices.Contains(logs, "one") || !slices.Contains(logs, "got hello") {
		t.Errorf("send_input: %s", in.text)
	}

	s.call("start_shell", map[string]any{"command": `printf 'Name? '; read n`, "workingDirectory": wd, "label": "asker"})
	eventually(t, 10*time.Second, "the prompt", func() bool {
		c := s.call("check_shell", map[string]any{"label": "asker"})
		if c.m["isProbablyAwaitingInput"] != true {
			return false
		}
		if msg := c.str("message"); msg != "Since last check: Prompts (1).\n• Name?" {
			t.Fatalf("awaiting input, but the message says %q", msg)
		}
		return true
	})
	if c := s.call("check_shell", map[string]any{"label": "asker"}); c.m["isProbablyAwaitingInput"] != true || !strings.Contains(c.str("message"), "Prompts (1)") {
		t.Errorf("a check while still waiting: %s", c.text)
	}
}

// Without YIELDSHELL_LOG_DIR the shell-yeah toolset still answers with
// log_file_path and tail_command, as the peer does: logs go to a private
// directory of the server's, removed when it exits (the peer's piled up).
func TestShellYeahLogsGoToPrivateDirectoryRemovedAtExit(t *testing.T) {
	tmp := t.TempDir()
	s := shellYeah(t, "TMPDIR="+tmp)
	st := s.call("start_shell", map[string]any{"command": "echo logged; sleep 30", "workingDirectory": t.TempDir(), "label": "w"})
	path := st.str("log_file_path")
	if st.isError || path == "" || !strings.HasPrefix(st.str("tail_command"), "tail ") || !strings.HasPrefix(path, tmp) {
		t.Fatalf("start_shell: %s", st.text)
	}
	eventually(t, 10*time.Second, "the log file to hold the output", func() bool {
		b, _ := os.ReadFile(path)
		return strings.Contains(string(b), "logged")
	})
	dir := filepath.Dir(path)
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("log directory %s: %v, %v", dir, fi.Mode(), err)
	}
	for _, tool := range []string{"check_shell", "list_shells"} {
		if r := s.call(tool, map[string]any{"label": "w"}); !strings.Contains(r.text, `"log_file_path":"`+path) {
			t.Errorf("%s has no log_file_path: %s", tool, r.text)
		}
	}
	if err := s.cs.Close(); err != nil {
		t.Logf("closing: %v", err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the log directory outlived the server: %v", err)
	}
}

// MCP_MAX_LOG_LINES, the peer's variable, caps the lines a shell shows.
func TestShellYeahMaxLogLinesCapsLines(t *testing.T) {
	s := shellYeah(t, "MCP_MAX_LOG_LINES=50")
	s.call("start_shell", map[string]any{"command": "seq 1 120; sleep 30", "workingDirectory": t.TempDir(), "label": "many"})
	eventually(t, 10*time.Second, "all 120 lines", func() bool {
		a := s.call("get_all_loglines", map[string]any{"label": "many"})
		logs := strs(a.m["logs"])
		return len(logs) == 50 && logs[49] == "120" && a.m["is_truncated"] == true
	})
	c := s.call("check_shell", map[string]any{"label": "many", "log_lines": 200})
	if logs := strs(c.m["logs"]); len(logs) != 50 || logs[0] != "71" || logs[49] != "120" {
		t.Errorf("check_shell: %s", c.text)
	}
}

// start_shell answers once the output has gone quiet after its first lines.
// A shell that has printed nothing is waited for while it uses CPU (an
// interpreter loading: the peer's 75 ms window closed before node or python
// printed), and answered at once while it sleeps.
func TestShellYeahStartShellWaitsForALoadingShell(t *testing.T) {
	s := shellYeah(t)
	wd := t.TempDir()
	st := s.call("start_shell", map[string]any{"command": `exec "$YS_HELPER_BIN" ys-helper spin-print 250`, "workingDirectory": wd, "label": "loading"})
	if st.isError || st.str("status") != "running" || !slices.Equal(strs(st.m["shellLogs"]), []string{"late"}) {
		t.Errorf("start_shell of a loading shell: %s", st.text)
	}
	st = s.call("start_shell", map[string]any{"command": "echo early; exec sleep 30", "workingDirectory": wd, "label": "early"})
	if st.isError || st.str("status") != "running" || !slices.Equal(strs(st.m["shellLogs"]), []string{"early"}) {
		t.Errorf("start_shell of a shell that printed at once: %s", st.text)
	}
}
