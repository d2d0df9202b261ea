//go:build unix

package conformance

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Spec: 0.4.0 Output Statuses: "completed: Process finished within yield_ms. Returns exit code, stdout, and stderr."
func TestExecCompletes(t *testing.T) {
	forEachProtocol(t, nil, func(t *testing.T, s *server) {
		r := s.exec("echo hello", nil).mustStatus(t, "completed")
		if r.isError {
			t.Errorf("isError = true for a completed command")
		}
		if got := r.str("stdout"); got != "hello\n" {
			t.Errorf("stdout = %q, want %q", got, "hello\n")
		}
		if r.num("exit_code") != 0 || !r.isNull("signal") {
			t.Errorf("exit_code, signal = %v, %v; want 0, null", r.m["exit_code"], r.m["signal"])
		}
		if !strings.HasPrefix(r.str("process_id"), "proc_") {
			t.Errorf("process_id = %q, want proc_...", r.str("process_id"))
		}
		if !r.has("next_seq") || r.num("next_seq") != float64(len("hello\n")) {
			t.Errorf("next_seq = %v, want %d", r.m["next_seq"], len("hello\n"))
		}
		if r.num("duration_ms") < 0 || r.num("duration_ms") > 5000 {
			t.Errorf("duration_ms = %v", r.m["duration_ms"])
		}
		if r.str("yield_reason") != "exited" || r.str("ended_by") != "exit" {
			t.Errorf("yield_reason, ended_by = %q, %q; want exited, exit", r.str("yield_reason"), r.str("ended_by"))
		}
	})
}

// Spec: DESIGN Errors: "A non-zero exit code is data."
func TestExecExitCodeIsData(t *testing.T) {
	forEachProtocol(t, nil, func(t *testing.T, s *server) {
		for _, tc := range []struct {
			cmd    string
			code   float64
			signal string
		}{
			{"exit 1", 1, ""},
			{"exit 42", 42, ""},
			{"no_such_command_xyz", 127, ""},
			{"kill -9 $$", -9, "SIGKILL"},
			{"kill -TERM $$", -15, "SIGTERM"},
		} {
			r := s.exec(tc.cmd, nil).mustStatus(t, "completed")
			if r.isError {
				t.Errorf("%s: isError = true; a non-zero exit is data", tc.cmd)
			}
			if r.num("exit_code") != tc.code || r.str("signal") != tc.signal {
				t.Errorf("%s: exit_code, signal = %v, %q; want %v, %q", tc.cmd, r.m["exit_code"], r.str("signal"), tc.code, tc.signal)
			}
		}
		r := s.exec("no_such_command_xyz", nil)
		if !strings.Contains(r.str("stdout"), "not found") {
			t.Errorf("stdout = %q, want the shell's 'not found'", r.str("stdout"))
		}
	})
}

// Spec: DESIGN PTY mode: "stdin/stdout/stderr are the terminal, so output arrives merged in stdout (stderr is \"\")".
func TestExecPTYIsDefault(t *testing.T) {
	forEachProtocol(t, nil, func(t *testing.T, s *server) {
		r := s.exec(`test -t 0 && test -t 1 && test -t 2 && echo tty; stty size; echo "$TERM"; echo err >&2`, nil).mustStatus(t, "completed")
		if got, want := r.str("stdout"), "tty\n40 120\nxterm-256color\nerr\n"; got != want {
			t.Errorf("stdout = %q, want %q", got, want)
		}
		if r.str("stderr") != "" {
			t.Errorf("stderr = %q, want \"\" (PTY output is merged)", r.str("stderr"))
		}
		r = s.exec("stty size", map[string]any{"cols": 80, "rows": 24})
		if got := r.str("stdout"); got != "24 80\n" {
			t.Errorf("stty size with cols/rows = %q, want \"24 80\\n\"", got)
		}
	})
}

// Spec: DESIGN PTY mode: "Pipe mode keeps the spec's split stdout/stderr with plain pipes".
func TestExecPipeModeSplitsStreams(t *testing.T) {
	forEachProtocol(t, nil, func(t *testing.T, s *server) {
		r := s.exec("test -t 1 || echo notty; echo err >&2", map[string]any{"tty": false}).mustStatus(t, "completed")
		if r.str("stdout") != "notty\n" || r.str("stderr") != "err\n" {
			t.Errorf("stdout, stderr = %q, %q; want \"notty\\n\", \"err\\n\"", r.str("stdout"), r.str("stderr"))
		}
	})
}

// Spec: DESIGN PTY mode: "the log is the cleaned text (escape sequences removed, CR and backspace redraws resolved to what a person saw, CRLF -> LF ...)".
func TestExecCleansTerminalOutput(t *testing.T) {
	forEachProtocol(t, nil, func(t *testing.T, s *server) {
		for _, tc := range []struct{ cmd, want string }{
			{`printf 'a\r\nb\n'`, "a\nb\n"},
			{`printf '\033[31mred\033[0m plain\n'`, "red plain\n"},
			{`printf '10%%\r50%%\r100%%\n'`, "100%\n"},
			{`printf 'abc\b\bX\n'`, "aXc\n"},
			{`printf '\033]0;title\007shown\n'`, "shown\n"},
		} {
			r := s.exec(tc.cmd, nil).mustStatus(t, "completed")
			if got := r.str("stdout"); got != tc.want {
				t.Errorf("%s: stdout = %q, want %q", tc.cmd, got, tc.want)
			}
		}
	})
}

// Spec: DESIGN Output to stdout is the transport: every answer is a JSON-RPC message, so output that is not UTF-8 must still make valid JSON.
func TestExecInvalidUTF8StaysValidJSON(t *testing.T) {
	forEachProtocol(t, nil, func(t *testing.T, s *server) {
		for _, tty := range []bool{true, false} {
			r := s.exec(helper("invalid-utf8"), map[string]any{"tty": tty}).mustStatus(t, "completed")
			out := r.str("stdout")
			if !strings.HasPrefix(out, "bad:") || !strings.Contains(out, "\uFFFD") || !strings.Contains(out, "(end") {
				t.Errorf("tty=%v: stdout = %q, want bad:…U+FFFD…(end", tty, out)
			}
		}
	})
}

// Spec: 0.4.0 Output Statuses: "backgrounded: Process auto-yielded. Returns process_id, pid, a snapshot of initial stdout/stderr, duration_ms, truncated, and a message".
func TestExecBackgrounds(t *testing.T) {
	forEachProtocol(t, nil, func(t *testing.T, s *server) {
		start := time.Now()
		r := s.exec("echo started; sleep 30", map[string]any{"yield_ms": 300}).mustStatus(t, "backgrounded")
		if el := time.Since(start); el < 300*time.Millisecond {
			t.Errorf("backgrounded after %v, before yield_ms", el)
		}
		if !strings.HasPrefix(r.str("process_id"), "proc_") || r.num("pid") <= 0 {
			t.Errorf("process_id, pid = %q, %v", r.str("process_id"), r.m["pid"])
		}
		if r.str("message") == "" || !r.has("next_seq") || r.str("yield_reason") != "yield_elapsed" {
			t.Errorf("answer lacks message/next_seq/yield_reason: %s", r.text)
		}
		if !strings.Contains(r.str("stdout"), "started") {
			t.Errorf("snapshot stdout = %q, want the initial output", r.str("stdout"))
		}
		// yield_ms 0 backgrounds even a fast command (the short sleep keeps
		// a loaded machine from finishing it before exec takes its snapshot).
		r = s.exec("echo quick; sleep 0.2", map[string]any{"yield_ms": 0}).mustStatus(t, "backgrounded")
		w := s.call("wait", map[string]any{"process_id": r.str("process_id"), "timeout_ms": 5000}).mustStatus(t, "completed")
		if !strings.Contains(w.str("stdout"), "quick") {
			t.Errorf("wait stdout = %q, want quick", w.str("stdout"))
		}
	})
}

// Spec: 0.4.0: "keeping normal foreground semantics for fast commands, then automatically promoting long-running commands ... after a brief delay (yield_ms)".
func TestExecReturnsAtExitNotAtYield(t *testing.T) {
	forEachProtocol(t, nil, func(t *testing.T, s *server) {
		start := time.Now()
		s.exec("sleep 0.2; echo done", map[string]any{"yield_ms": 20000}).mustStatus(t, "completed")
		if el := time.Since(start); el > 5*time.Second {
			t.Errorf("exec took %v for a 0.2 s command with yield 20 s", el)
		}
	})
}

// Spec: 0.4.0 exec: "timeout_ms ... Total execution runtime limit in milliseconds. Process is killed if it runs longer than this."
func TestExecTimeout(t *testing.T) {
	// The grace between SIGTERM and SIGKILL is shortened from its 2 s
	// default: what is checked is the escalation, not the wait.
	forEachProtocol(t, []string{"YIELDSHELL_TIMEOUT_GRACE_MS=300"}, func(t *testing.T, s *server) {
		// The default shell (bash) hands a lone command its own process,
		// so SIGTERM reaches sleep at once. (dash forked it and held
		// signals while forking, up to 194 ms under load: the grace could
		// run out first, issue 32.)
		r := s.exec("sleep 30", map[string]any{"yield_ms": 10000, "timeout_ms": 200}).mustStatus(t, "timed_out")
		if r.str("ended_by") != "timeout" || r.str("signal") != "SIGTERM" || r.num("exit_code") != -15 {
			t.Errorf("ended_by, signal, exit_code = %q, %q, %v", r.str("ended_by"), r.str("signal"), r.m["exit_code"])
		}
		// A command that ignores SIGTERM is killed after the grace.
		// (trap '' is inherited by sleep, and in place before the timeout.)
		r = s.exec("trap '' TERM; sleep 30", map[string]any{"yield_ms": 10000, "timeout_ms": 200}).mustStatus(t, "timed_out")
		if r.str("signal") != "SIGKILL" {
			t.Errorf("signal = %q, want SIGKILL for a process that ignores SIGTERM", r.str("signal"))
		}
		// A backgrounded process times out later and read shows it.
		r = s.exec("sleep 30", map[string]any{"yield_ms": 50, "timeout_ms": 300}).mustStatus(t, "backgrounded")
		w := s.call("wait", map[string]any{"process_id": r.str("process_id"), "timeout_ms": 10000})
		w.mustStatus(t, "timed_out")
	})
}

// Spec: 0.4.0 exec: "stdin ... Initial text input written to standard input immediately after spawning" and "env ... Additive environment variable overlay."
func TestExecStdinAndEnv(t *testing.T) {
	forEachProtocol(t, nil, func(t *testing.T, s *server) {
		r := s.exec(`read line; echo "got $line"`, map[string]any{"stdin": "hi\n"}).mustStatus(t, "completed")
		if !strings.Contains(r.str("stdout"), "got hi") {
			t.Errorf("stdout = %q, want got hi", r.str("stdout"))
		}
		r = s.exec("wc -c", map[string]any{"stdin": "hello", "close_stdin": true, "tty": false}).mustStatus(t, "completed")
		if strings.TrimSpace(r.str("stdout")) != "5" {
			t.Errorf("wc -c with close_stdin = %q, want 5", r.str("stdout"))
		}
		r = s.exec(`echo "$YS_TEST_VAR:$HOME"`, map[string]any{"env": map[string]string{"YS_TEST_VAR": "hello"}})
		if want := "hello:" + os.Getenv("HOME") + "\n"; r.str("stdout") != want {
			t.Errorf("env overlay: stdout = %q, want %q", r.str("stdout"), want)
		}
	})
}

// Spec: 0.4.0 exec: "cwd ... Defaults to YIELDSHELL_DEFAULT_CWD"; Output Statuses: "failed_to_start: Command could not be spawned (e.g., bad directory ...)".
func TestExecCwd(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	forEachProtocolInTurn(t, []string{"YIELDSHELL_DEFAULT_CWD=" + dir}, func(t *testing.T, s *server) {
		r := s.exec("pwd", nil).mustStatus(t, "completed")
		if got := strings.TrimSpace(r.str("stdout")); got != dir {
			t.Errorf("pwd = %q, want the default cwd %q", got, dir)
		}
		r = s.exec("pwd", map[string]any{"cwd": "sub"}).mustStatus(t, "completed")
		if got := strings.TrimSpace(r.str("stdout")); got != sub {
			t.Errorf("relative cwd: pwd = %q, want %q", got, sub)
		}
		for _, bad := range []string{filepath.Join(dir, "missing"), file} {
			r := s.exec("pwd", map[string]any{"cwd": bad}).mustStatus(t, "failed_to_start")
			if !r.isError || r.str("error") == "" {
				t.Errorf("cwd %s: want isError with an error message; got %s", bad, r.text)
			}
		}
	})
}

// Spec: 0.4.0 Side-Effects Guide: "The server rejects the call with failed_to_start if any declared category is blocked."
func TestExecSideEffects(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "marker")
	forEachProtocolInTurn(t, nil, func(t *testing.T, s *server) {
		for _, tc := range []struct {
			name  string
			decl  []string
			words []string
		}{
			{"empty", []string{}, []string{"side_effects", "NONE"}},
			{"NONE combined", []string{"NONE", "DELETES_FILES"}, []string{"NONE", "DELETES_FILES"}},
			{"blocked by default", []string{"RUNS_INLINE_CODE"}, []string{"RUNS_INLINE_CODE", "blocked by policy", "reviewable"}},
			{"blocked among others", []string{"MODIFIES_WORKSPACE_FILES", "MODIFIES_PROTECTED_FILES"}, []string{"MODIFIES_PROTECTED_FILES", "blocked by policy"}},
		} {
			r := s.call("exec", map[string]any{"command": "touch " + marker, "side_effects": tc.decl}).mustStatus(t, "failed_to_start")
			if !r.isError {
				t.Errorf("%s: isError = false", tc.name)
			}
			for _, w := range tc.words {
				if !strings.Contains(r.str("error"), w) {
					t.Errorf("%s: error %q lacks %q", tc.name, r.str("error"), w)
				}
			}
		}
		if _, err := os.Stat(marker); err == nil {
			t.Fatalf("a refused command ran: %s exists", marker)
		}
		if n := len(s.call("ps", nil).m["processes"].([]any)); n != 0 {
			t.Errorf("refused execs registered %d processes", n)
		}
		// A bad enum value is refused by the schema before anything runs.
		r := s.call("exec", map[string]any{"command": "true", "side_effects": []string{"TELEPORT"}})
		if !r.isError {
			t.Errorf("unknown category accepted: %s", r.text)
		}
		s.exec("true", map[string]any{"side_effects": []string{"MAKES_NETWORK_REQUESTS"}}).mustStatus(t, "completed")
	})
}

// Spec: 0.4.0 Configuration: "Set to , (or any value that resolves to no entries) to clear the default blocklist."
func TestExecBlocklistFromEnv(t *testing.T) {
	forEachProtocol(t, []string{"MCP_YIELDSHELL_BLOCKED_SIDE_EFFECTS=,"}, func(t *testing.T, s *server) {
		s.exec("true", map[string]any{"side_effects": []string{"RUNS_INLINE_CODE"}}).mustStatus(t, "completed")
	})
}

// Spec: 0.4.0 Configuration: YIELDSHELL_MAX_PROCESSES "Completed, stopped, timed-out, and failed processes do not count against this limit."
func TestExecMaxProcesses(t *testing.T) {
	forEachProtocol(t, []string{"YIELDSHELL_MAX_PROCESSES=2"}, func(t *testing.T, s *server) {
		for range 3 {
			s.exec("true", nil).mustStatus(t, "completed") // finished processes do not count
		}
		s.exec("sleep 30", map[string]any{"yield_ms": 0}).mustStatus(t, "backgrounded")
		s.exec("sleep 30", map[string]any{"yield_ms": 0}).mustStatus(t, "backgrounded")
		r := s.exec("sleep 30", map[string]any{"yield_ms": 0}).mustStatus(t, "failed_to_start")
		if !strings.Contains(strings.ToLower(r.str("error")), "limit") {
			t.Errorf("error = %q, want it to name the limit", r.str("error"))
		}
	})
}

// Spec: 0.4.0 Configuration: YIELDSHELL_DENY_COMMAND_REGEX "Commands matching this pattern are blocked before starting"; ALLOW: "only commands matching this pattern are permitted."
func TestExecCommandRegexes(t *testing.T) {
	forEachProtocol(t, []string{`YIELDSHELL_DENY_COMMAND_REGEX=rm\s`, `YIELDSHELL_ALLOW_COMMAND_REGEX=^(echo|rm)\s`}, func(t *testing.T, s *server) {
		s.exec("rm -rf /nonexistent-ys", nil).mustStatus(t, "failed_to_start")
		s.exec("ls -la", nil).mustStatus(t, "failed_to_start")
		s.exec("echo ok", nil).mustStatus(t, "completed")
	})
}

// Spec: 0.4.0 Configuration: YIELDSHELL_MAX_OUTPUT_BYTES "The default and maximum capacity of the ring buffers for stdout/stderr."
func TestExecOutputCap(t *testing.T) {
	forEachProtocol(t, []string{"YIELDSHELL_MAX_OUTPUT_BYTES=100"}, func(t *testing.T, s *server) {
		r := s.exec(helper("bytes", "500"), nil).mustStatus(t, "completed")
		if len(r.str("stdout")) > 100 || r.m["truncated"] != true {
			t.Errorf("len(stdout) = %d, truncated = %v; want ≤ 100, true", len(r.str("stdout")), r.m["truncated"])
		}
		if r := s.exec("echo hello", nil); r.m["truncated"] != false {
			t.Errorf("truncated = %v for short output", r.m["truncated"])
		}
	})
}

// Spec: 0.4.0 Configuration: YIELDSHELL_REDACT_ENV_REGEX "Their values are redacted in stdout/stderr outputs."
func TestRedaction(t *testing.T) {
	const secret = "supersecret-value-123"
	const overlay = "overlay-secret-456"
	forEachProtocol(t, []string{"MY_SECRET_KEY=" + secret}, func(t *testing.T, s *server) {
		for _, tty := range []bool{true, false} {
			r := s.exec(`echo "$MY_SECRET_KEY $API_TOKEN"; `+helper("split", secret),
				map[string]any{"tty": tty, "env": map[string]string{"API_TOKEN": overlay}}).mustStatus(t, "completed")
			if strings.Contains(r.text, secret) || strings.Contains(r.text, overlay) {
				t.Errorf("tty=%v: a secret reached the answer: %s", tty, r.text)
			}
			want := "[REDACTED:MY_SECRET_KEY] [REDACTED:API_TOKEN]\n[REDACTED:MY_SECRET_KEY]\n"
			if r.str("stdout") != want {
				t.Errorf("tty=%v: stdout = %q, want %q", tty, r.str("stdout"), want)
			}
		}
		s.exec("echo "+overlay, map[string]any{"env": map[string]string{"API_TOKEN": overlay}, "name": "n-" + overlay})
		ps := s.call("ps", nil)
		if strings.Contains(ps.text, overlay) {
			t.Errorf("ps shows a secret: %s", ps.text)
		}
		// Short values are not treated as secrets: ordinary output stays intact.
		r := s.exec("echo hello", map[string]any{"env": map[string]string{"SHORT_KEY": "e"}})
		if r.str("stdout") != "hello\n" {
			t.Errorf("a short value was redacted: %q", r.str("stdout"))
		}
	})
}

// A refusal quotes what it refused; a secret in the command, cwd or shell
// is redacted there as in every other answer (issue 16 item 8).
// Spec: issue 16 item 8: "refusal and error messages repeat a literal secret from the command, cwd or shell (redact them)."
func TestRefusalsRedactSecrets(t *testing.T) {
	const secret = "refusal-secret-789"
	forEachProtocol(t, []string{`YIELDSHELL_DENY_COMMAND_REGEX=^curl\s`, "MY_SECRET_KEY=" + secret}, func(t *testing.T, s *server) {
		for _, c := range []struct {
			command string
			args    map[string]any
		}{
			{"curl -H 'Authorization: " + secret + "' http://x", nil},
			{"true", map[string]any{"cwd": "/nonexistent-" + secret}},
			{"true", map[string]any{"shell": "nosuchshell-" + secret}},
		} {
			r := s.exec(c.command, c.args).mustStatus(t, "failed_to_start")
			if strings.Contains(r.text, secret[:8]) || !strings.Contains(r.text, "[REDACTED") {
				t.Errorf("%s %v: the refusal does not redact the secret: %s", c.command, c.args, r.text)
			}
		}
	})
}

// Spec: DESIGN Errors: "Protocol errors are for malformed requests only."
func TestMalformedArguments(t *testing.T) {
	forEachProtocol(t, nil, func(t *testing.T, s *server) {
		for _, args := range []map[string]any{
			{"side_effects": []string{"NONE"}},                    // no command
			{"command": "true"},                                   // no side_effects
			{"command": 5, "side_effects": []string{"NONE"}},      // wrong type
			{"command": "true", "side_effects": "NONE"},           // not a list
			{"command": "true", "side_effects": []string{"none"}}, // wrong case
			{"command": "true", "side_effects": []string{"NONE"}, "bogus": 1},
		} {
			if r := s.call("exec", args); !r.isError {
				t.Errorf("exec(%v) accepted: %s", args, r.text)
			}
		}
		if n := len(s.call("ps", nil).m["processes"].([]any)); n != 0 {
			t.Errorf("malformed calls started %d processes", n)
		}
	})
}

// Spec: DESIGN One process, followed through: cwd is checked with "symlinks resolved, compared per path component, never as a string prefix".
func TestExecAllowedRoots(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "work")
	for _, d := range []string{root, root + "foo", filepath.Join(root, "sub"), filepath.Join(base, "outside")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(base, "outside"), filepath.Join(root, "escape")); err != nil {
		t.Fatal(err)
	}
	forEachProtocolInTurn(t, []string{"YIELDSHELL_ALLOWED_CWDS=" + root, "YIELDSHELL_DEFAULT_CWD=" + root}, func(t *testing.T, s *server) {
		for _, ok := range []string{root, "sub", filepath.Join(root, "sub", "..")} {
			s.exec("pwd", map[string]any{"cwd": ok}).mustStatus(t, "completed")
		}
		for _, bad := range []string{root + "foo", "..", "../outside", "escape", "/"} {
			r := s.exec("pwd", map[string]any{"cwd": bad}).mustStatus(t, "failed_to_start")
			if r.str("rule") != "cwd" {
				t.Errorf("cwd %q: rule = %q, want cwd", bad, r.str("rule"))
			}
		}
	})
}
