//go:build unix

package conformance

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
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
//
// Spec: issue 17: "In the shell-yeah toolset, accept and ignore unknown arguments (say which were ignored in the answer)".
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
//
// Spec: issue 17: "honour verification_pattern/verification_timeout_ms on start_shell as its clients mean them."
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
//
// Spec: issue 17: "list_shells answers {\"shells\": [...]} as text; the peer's clients read a bare array."
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
//
// Spec: issue 17: "Fields the peer's answer schema has and its clients read are missing: toolLogs ..., isVerificationEnabled, ai_instructions".
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
//
// Spec: issue 17: "skipped_count on stop_all_shells".
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
//
// Spec: issue 17: "stopped shells' negative exit codes (-15) differ from the peer's form."
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
//
// Spec: issue 17: "Match the peer's \"since last check\" meaning, with the message agreeing with the other fields".
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
//
// Spec: issue 17: "keep logs in a private per-server temporary directory by default (removed at exit) so those fields are always there."
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
//
// Spec: issue 17: "The peer's MCP_MAX_LOG_LINES is not read".
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
//
// Spec: issue 17: "start_shell answers in 300-400 ms where the peer answers in about 90 ms".
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

// verification_timeout_ms bounds start_shell's wait for the pattern: a
// pattern that never appears is answered as not verified once the timeout
// has passed, with the shell still running (the peer turned it into an
// error while the process ran on, and by default waited forever).
//
// Spec: issue 17: "honour verification_pattern/verification_timeout_ms on start_shell as its clients mean them."
func TestShellYeahVerificationTimeoutAnswersNotVerified(t *testing.T) {
	s := shellYeah(t)
	const timeout = 400 * time.Millisecond
	begun := time.Now()
	st := s.call("start_shell", map[string]any{"command": "echo booting; sleep 30", "workingDirectory": t.TempDir(), "label": "slow",
		"verification_pattern": "never printed", "verification_timeout_ms": timeout.Milliseconds()})
	took := time.Since(begun)
	if st.isError || st.m["verified"] != false || st.str("status") != "running" || st.num("verificationTimeoutMs") != float64(timeout.Milliseconds()) ||
		!strings.Contains(st.str("message"), "did not appear within 400 ms") || !slices.Contains(strs(st.m["shellLogs"]), "booting") {
		t.Errorf("start_shell whose pattern never appears: %s", st.text)
	}
	if took < timeout {
		t.Errorf("answered after %v, before verification_timeout_ms (%v) passed", took, timeout)
	}
	if c := s.call("check_shell", map[string]any{"label": "slow"}); c.str("status") != "running" {
		t.Errorf("the shell after a failed verification: %s", c.text)
	}
}

// A command that ends before start_shell answers (the peer's mkdir -p
// regression case) is a successful start that already stopped, with its
// exit code, not an error.
//
// Spec: issue 17: "Both peers' suites will be run against the result again" (the peer's mkdir -p case).
func TestShellYeahShortLivedStartIsNotAnError(t *testing.T) {
	s := shellYeah(t)
	dir := filepath.Join(t.TempDir(), "made", "here")
	st := s.call("start_shell", map[string]any{"command": "mkdir", "args": []string{"-p", dir}, "workingDirectory": t.TempDir(), "label": "setup_dir"})
	if st.isError || st.str("status") != "stopped" || st.num("exitCode") != 0 || len(strs(st.m["toolLogs"])) == 0 {
		t.Errorf("start_shell of mkdir -p: %s", st.text)
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		t.Errorf("mkdir -p did not run: %v", err)
	}
}

// Output a shell printed before it ended is still summarised by the next
// check: errors, warnings, URLs and prompts are counted after the exit (the
// peer had purged the shell and said "No notable events").
//
// Spec: issue 17: "Both peers' suites will be run against the result again" (the peer's summary-after-exit case).
func TestShellYeahCheckAfterExitSummarisesOutput(t *testing.T) {
	s := shellYeah(t)
	s.call("start_shell", map[string]any{"command": `sleep 0.3; echo "Error: database connection failed"; echo "Warning: deprecated API"; ` +
		`echo "Server at http://localhost:3000/x"; printf 'Enter password: '; sleep 0.3; exit 0`, "workingDirectory": t.TempDir(), "label": "summary"})
	eventually(t, 10*time.Second, "the shell to end", func() bool {
		return s.call("wait_for_shell", map[string]any{"label": "summary", "target_status": "stopped", "timeout_seconds": 5}).str("final_status") == "stopped"
	})
	c := s.call("check_shell", map[string]any{"label": "summary", "log_lines": 100})
	want := "Since last check: Errors (1), Warnings (1), URLs (1), Prompts (1).\n• Error: database connection failed\n• Warning: deprecated API\n• Server at http://localhost:3000/x"
	if c.isError || c.str("status") != "stopped" || c.str("message") != want || len(strs(c.m["logs"])) != 4 {
		t.Errorf("check after the exit: %s", c.text)
	}
	if c := s.call("check_shell", map[string]any{"label": "summary"}); c.str("message") != "No notable events since last check." || len(strs(c.m["logs"])) != 0 {
		t.Errorf("the check after that: %s", c.text)
	}
}

// The peer's prompt fixtures (bash read, python input, a node CLI,
// consecutive python and node readline prompts): each prompt, its
// trailing space included, appears in check_shell's lines while the
// program waits, and the answer typed with send_input reaches it.
//
// Spec: issue 17: "Both peers' suites will be run against the result again" (the peer's prompt fixtures).
func TestShellYeahPromptsAppearInLogs(t *testing.T) {
	cases := []struct {
		name, program, command string
		prompts, answers       []string
		reply                  string
	}{
		{"bash_read", "bash", `bash -c 'echo -n "Enter your name: "; read name; echo "Hello, $name!"'`,
			[]string{"Enter your name: "}, []string{"Ada"}, "Hello, Ada!"},
		{"python_input", "python3", `python3 -c 'import sys; sys.stdout.write("What is your favorite color? "); sys.stdout.flush(); c = input(); print("You chose " + c)'`,
			[]string{"What is your favorite color? "}, []string{"blue"}, "You chose blue"},
		{"node_cli", "node", `node -e 'process.stdout.write("Type a secret word: "); process.stdin.once("data", d => { console.log("You typed: " + d.toString().trim()); process.exit(0) })'`,
			[]string{"Type a secret word: "}, []string{"xyzzy"}, "You typed: xyzzy"},
		{"python_multiline", "python3", `python3 -c 'f = input("First name: "); l = input("Last name: "); print("Hi " + f + " " + l)'`,
			[]string{"First name: ", "Last name: "}, []string{"Ada", "Lovelace"}, "Hi Ada Lovelace"},
		{"node_readline", "node", `node -e 'const rl = require("readline").createInterface({input: process.stdin, output: process.stdout}); rl.question("Username: ", u => rl.question("Password: ", p => { console.log("Welcome, " + u + "! (Password: " + p.length + " chars)"); rl.close() }))'`,
			[]string{"Username: ", "Password: "}, []string{"ada", "secret"}, "Welcome, ada! (Password: 6 chars)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if _, err := exec.LookPath(c.program); err != nil {
				t.Skip(c.program + " not installed")
			}
			t.Parallel()
			s := shellYeah(t)
			s.call("start_shell", map[string]any{"command": c.command, "workingDirectory": t.TempDir(), "label": c.name})
			var seen []string
			for i, prompt := range c.prompts {
				eventually(t, 10*time.Second, fmt.Sprintf("the prompt %q in the logs", prompt), func() bool {
					r := s.call("check_shell", map[string]any{"label": c.name, "log_lines": 100})
					seen = append(seen, strs(r.m["logs"])...)
					return slices.ContainsFunc(seen, func(l string) bool { return strings.Contains(l, prompt) }) && r.m["isProbablyAwaitingInput"] == true
				})
				seen = nil
				in := s.call("send_input", map[string]any{"label": c.name, "input": c.answers[i]})
				if in.isError || !in.has("status") || !in.has("logs") {
					t.Fatalf("send_input: %s", in.text)
				}
				seen = append(seen, strs(in.m["logs"])...)
			}
			eventually(t, 10*time.Second, fmt.Sprintf("the reply %q", c.reply), func() bool {
				seen = append(seen, strs(s.call("check_shell", map[string]any{"label": c.name}).m["logs"])...)
				return slices.ContainsFunc(seen, func(l string) bool { return strings.Contains(l, c.reply) })
			})
		})
	}
}

// start_shell's answer already holds the first line of a program that
// prints at once and lives on (the peer's quick node and python cases,
// which failed against it: its 75 ms window closed before they printed).
// python3 is run by its real path: a version manager's shim (pyenv) can
// take longer than start_shell's 3 s bound on a loaded machine.
//
// Spec: issue 17: "Both peers' suites will be run against the result again" (the peer's quick node and python cases).
func TestShellYeahStartAnswerHasAnInterpretersFirstLine(t *testing.T) {
	for _, c := range []struct{ program, command, hello string }{
		{"bash", `bash -c 'echo "Hello from bash!"; sleep 2'`, "Hello from bash!"},
		{"python3", `%s -c 'import time; print("Hello from python!", flush=True); time.sleep(2)'`, "Hello from python!"},
		{"node", `node -e 'console.log("Hello from node!"); setTimeout(() => {}, 2000)'`, "Hello from node!"},
	} {
		t.Run(c.program, func(t *testing.T) {
			if _, err := exec.LookPath(c.program); err != nil {
				t.Skip(c.program + " not installed")
			}
			t.Parallel()
			command := c.command
			if c.program == "python3" {
				out, err := exec.Command("python3", "-c", "import sys; print(sys.executable)").Output()
				if err != nil {
					t.Fatalf("python3's path: %v", err)
				}
				command = fmt.Sprintf(command, shellQuoted(strings.TrimSpace(string(out))))
			}
			s := shellYeah(t)
			begun := time.Now()
			st := s.call("start_shell", map[string]any{"command": command, "workingDirectory": t.TempDir(), "label": "quick"})
			took := time.Since(begun)
			if st.isError || st.str("status") != "running" {
				t.Fatalf("start_shell: %s", st.text)
			}
			if slices.Contains(strs(st.m["shellLogs"]), c.hello) {
				return
			}
			// The wait for a loading interpreter is bounded (3 s): an
			// overloaded machine may not start it within that. Answering
			// sooner without the line is the failure.
			if took < startShellBound {
				t.Fatalf("start_shell answered after %v without the first line: %s", took, st.text)
			}
			t.Logf("start_shell answered at its bound (%v) before %s printed", took, c.program)
			eventually(t, 20*time.Second, "the first line", func() bool {
				return slices.Contains(strs(s.call("check_shell", map[string]any{"label": "quick"}).m["logs"]), c.hello)
			})
		})
	}
}

// A stopped shell keeps its record: list_shells still lists it, stopped,
// with its lines, and check_shell answers for it (the peer purged it at
// once; its list test expects the label gone, a deliberate difference).
//
// Spec: issue 17: "the README records every deliberate difference that remains from each peer, with its reason."
func TestShellYeahStoppedShellStaysListed(t *testing.T) {
	s := shellYeah(t)
	s.call("start_shell", map[string]any{"command": "echo still here; sleep 30", "workingDirectory": t.TempDir(), "label": "kept"})
	if sp := s.call("stop_shell", map[string]any{"label": "kept"}); sp.isError || sp.str("status") != "stopped" {
		t.Fatalf("stop_shell: %s", sp.text)
	}
	var entries []map[string]any
	l := s.call("list_shells", map[string]any{"log_lines": 5})
	if err := json.Unmarshal([]byte(l.text), &entries); err != nil || len(entries) != 1 || entries[0]["label"] != "kept" ||
		entries[0]["status"] != "stopped" || !slices.Contains(strs(entries[0]["logs"]), "still here") {
		t.Errorf("list_shells after stop_shell (%v): %s", err, l.text)
	}
	if c := s.call("check_shell", map[string]any{"label": "kept"}); c.isError || c.str("status") != "stopped" || c.str("signal") != "SIGTERM" {
		t.Errorf("check_shell after stop_shell: %s", c.text)
	}
}

// A bash whose prompt carries OSC 133 marks (B at the prompt's end, C
// when a command starts) is awaiting input at its prompt, again after a
// command, and not while a command runs: the peer's OSC 133 cases, with
// the real control bytes its own tests failed to send.
//
// Spec: issue 17: "its 5 skipped OSC 133 tests pass against yieldshell and fail against the peer".
func TestShellYeahOSC133PromptMarks(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash not installed")
	}
	s := shellYeah(t)
	dir := t.TempDir()
	rc := filepath.Join(dir, "osc133.rc")
	if err := os.WriteFile(rc, []byte("PS1=$'\\[\\e]133;A\\a\\]osc$ \\[\\e]133;B\\a\\]'\nPS0=$'\\e]133;C\\a'\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	st := s.call("start_shell", map[string]any{"command": "bash", "args": []string{"--rcfile", rc, "-i"}, "workingDirectory": dir, "label": "osc"})
	if st.isError {
		t.Fatalf("start_shell: %s", st.text)
	}
	// send_input answers with the lines since the previous check, so
	// they count as seen too.
	var seen []string
	awaiting := func(want bool, what string, line string) {
		t.Helper()
		eventually(t, 10*time.Second, what, func() bool {
			c := s.call("check_shell", map[string]any{"label": "osc", "log_lines": 100})
			seen = append(seen, strs(c.m["logs"])...)
			return c.m["isProbablyAwaitingInput"] == want && (line == "" || slices.Contains(seen, line))
		})
	}
	send := func(input string) {
		t.Helper()
		in := s.call("send_input", map[string]any{"label": "osc", "input": input})
		if in.isError {
			t.Fatalf("send_input: %s", in.text)
		}
		seen = append(seen, strs(in.m["logs"])...)
	}
	awaiting(true, "awaiting input at the first prompt", "")
	send("echo hi-from-osc")
	awaiting(true, "awaiting input again after echo", "hi-from-osc")
	send("sleep 30")
	awaiting(false, "not awaiting input while sleep runs", "")
}

// startShellBound is the longest start_shell waits for a shell's first
// reaction (docs/guide.md, the mcp-shell-yeah toolset).
const startShellBound = 3 * time.Second

// shellQuoted quotes s as one shell word.
func shellQuoted(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
