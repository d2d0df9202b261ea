//go:build unix

package conformance

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

const devURL = "http://localhost:5173/"

// Names are handles in every tool, compared the same way everywhere, and a
// second start under a running name is refused with the running one's id.
//
// Spec: DESIGN Names: "any tool that takes a process_id also takes a name; starting a second live process under a running name is refused with the existing id".
func TestNamesAreHandles(t *testing.T) {
	forEachProtocol(t, nil, func(t *testing.T, s *server) {
		first := s.exec(helper("devserver", "0", devURL), map[string]any{"name": "Web App", "yield_ms": 0}).mustStatus(t, "backgrounded")
		id := first.str("process_id")
		if first.str("name") != "web-app" {
			t.Errorf("name = %q, want web-app", first.str("name"))
		}
		s.readUntil("web app", "ready")
		for _, ref := range []string{"web-app", "WEB APP", " web  app "} {
			if r := s.call("read", map[string]any{"process_id": ref}); r.isError || r.str("process_id") != id {
				t.Errorf("read %q: %s", ref, r.text)
			}
		}
		dup := s.exec("sleep 30", map[string]any{"name": "web-app", "yield_ms": 0})
		if !dup.isError || dup.str("status") != "failed_to_start" || dup.str("rule") != "name" ||
			dup.str("existing_process_id") != id || !strings.Contains(dup.str("error"), "restart") {
			t.Fatalf("duplicate start: %s", dup.text)
		}
		if r := s.call("write", map[string]any{"process_id": "Web App", "input": "say hi there", "newline": true}); r.isError {
			t.Fatal(r.text)
		}
		s.readUntil("web-app", "hi there")
		if r := s.call("stop", map[string]any{"process_id": "web-app"}); !r.m["stopped"].(bool) || r.str("process_id") != id {
			t.Fatalf("stop by name: %s", r.text)
		}
		second := s.exec(helper("devserver", "0", devURL), map[string]any{"name": "web-app", "yield_ms": 0}).mustStatus(t, "backgrounded")
		if r := s.call("read", map[string]any{"process_id": "web-app"}); r.str("process_id") != second.str("process_id") {
			t.Errorf("the name resolves to %s, want the newest run %s", r.str("process_id"), second.str("process_id"))
		}
		if r := s.call("read", map[string]any{"process_id": "no-such-name"}); !r.isError {
			t.Errorf("unknown name: %s", r.text)
		}
	})
}

// exec wait_for answers as soon as the dev server prints its URL, with the
// URL listed; output of the first milliseconds counts.
//
// Spec: shell-yeah start_shell_with_verification: "verification_pattern ... Optional regex pattern to match in stdout/stderr to verify successful startup."
func TestWaitForVerifiesStart(t *testing.T) {
	forEachProtocol(t, nil, func(t *testing.T, s *server) {
		for _, delay := range []string{"0", "300"} {
			r := s.exec(helper("devserver", delay, devURL), map[string]any{"wait_for": `Local:\s+http`, "wait_for_timeout_ms": 20000})
			r.mustStatus(t, "backgrounded")
			received := time.Now()
			if r.str("yield_reason") != "pattern" || r.m["verified"] != true || r.str("matched") != "Local:   http" ||
				!strings.Contains(r.str("matched_line"), devURL) {
				t.Fatalf("delay %s: %s", delay, r.text)
			}
			if urls, _ := r.m["urls"].([]any); len(urls) != 1 || urls[0] != devURL {
				t.Errorf("delay %s: urls = %v", delay, r.m["urls"])
			}
			if d := r.num("duration_ms"); delay == "300" && d < 300 {
				t.Errorf("answered after %v ms, before the URL was printed", d)
			}
			t.Logf("delay %s: URL printed to answer received: %v", delay, received.Sub(printedAt(t, r.str("matched_line"))))
		}
		// The process exits first: said plainly, with its exit code.
		r := s.exec("echo starting; exit 2", map[string]any{"wait_for": "ready"}).mustStatus(t, "completed")
		if r.m["verified"] != false || r.str("yield_reason") != "exited" || r.num("exit_code") != 2 || !strings.Contains(r.text, "not verified") {
			t.Errorf("exit first: %s", r.text)
		}
		// The limit passes: not verified, still running.
		r = s.exec(helper("devserver", "0", devURL), map[string]any{"wait_for": "never printed", "wait_for_timeout_ms": 200}).mustStatus(t, "backgrounded")
		if r.m["verified"] != false || r.str("yield_reason") != "deadline" || !strings.Contains(r.text, "still running") {
			t.Errorf("limit: %s", r.text)
		}
		// wait until: output from since_seq on.
		id := r.str("process_id")
		s.readUntil(id, "ready")
		seq := s.call("read", map[string]any{"process_id": id}).num("next_seq")
		if w := s.call("write", map[string]any{"process_id": id, "input": "say compiled in 12ms", "newline": true}); w.isError {
			t.Fatal(w.text)
		}
		w := s.call("wait", map[string]any{"process_id": id, "until": `compiled in \d+ms`, "since_seq": seq, "timeout_ms": 20000})
		if w.str("yield_reason") != "pattern" || w.str("matched") != "compiled in 12ms" || w.str("status") != "running" {
			t.Errorf("wait until: %s", w.text)
		}
		if bad := s.exec("true", map[string]any{"wait_for": "(?=x)"}); !bad.isError || !strings.Contains(bad.str("error"), "nothing was started") {
			t.Errorf("bad regex: %s", bad.text)
		}
	})
}

// printedAt reads the time the dev server printed its URL.
func printedAt(t *testing.T, line string) time.Time {
	_, after, _ := strings.Cut(line, "printed at ")
	ns, err := strconv.ParseInt(strings.TrimRight(after, ")"), 10, 64)
	if err != nil {
		t.Fatalf("no time in %q", line)
	}
	return time.Unix(0, ns)
}

// A crashing server is restarted with back-off until it stays up; the
// history is in ps; stop ends it for good and restart starts it again.
//
// Spec: shell-yeah: "max_retries ... Optional maximum number of restart attempts for a crashed process" and "restart_shell: Restarts a specific process."
func TestCrashRestartsAndRestart(t *testing.T) {
	forEachProtocol(t, nil, func(t *testing.T, s *server) {
		counter := filepath.Join(t.TempDir(), "runs")
		cmd := helper("devserver", "0", devURL, "crash-runs=2", "counter="+counter)
		first := s.exec(cmd, map[string]any{"name": "flaky", "max_retries": 3, "retry_delay_ms": 50, "wait_for": "run 1"})
		if first.m["verified"] != true {
			t.Fatalf("first run: %s", first.text)
		}
		var entry map[string]any
		eventually(t, 20*time.Second, "the third run to stay up", func() bool {
			r := s.call("read", map[string]any{"process_id": "flaky"})
			if r.str("status") != "running" || !strings.Contains(r.str("stdout"), "run 3: up") {
				return false
			}
			for _, e := range s.call("ps", nil).m["processes"].([]any) {
				if e := e.(map[string]any); e["process_id"] == r.str("process_id") {
					entry = e
				}
			}
			return entry != nil
		})
		last, _ := entry["last_exit"].(map[string]any)
		if entry["restarts"] != 2.0 || last == nil || last["exit_code"] != 3.0 || last["ended_by"] != "exit" {
			t.Errorf("ps entry: %v", entry)
		}
		runs := len(s.call("ps", nil).m["processes"].([]any))
		if runs != 3 {
			t.Errorf("%d runs in ps, want 3", runs)
		}
		// restart: a new run under the name; the old one ended by restart.
		old := entry["process_id"].(string)
		r := s.call("restart", map[string]any{"process_id": "flaky", "wait_for": "run 4: up"})
		if r.isError || r.str("restarted_from") != old || r.str("process_id") == old || r.m["verified"] != true || r.str("name") != "flaky" {
			t.Fatalf("restart: %s", r.text)
		}
		if o := s.call("read", map[string]any{"process_id": old}); o.str("ended_by") != "restart" || o.str("status") != "stopped" {
			t.Errorf("old run: %s", o.text)
		}
		// A crash on demand restarts it; stop never does.
		s.call("write", map[string]any{"process_id": "flaky", "input": "crash", "newline": true})
		eventually(t, 20*time.Second, "a crash restart", func() bool {
			return strings.Contains(s.call("read", map[string]any{"process_id": "flaky"}).str("stdout"), "run 5: up")
		})
		st := s.call("stop", map[string]any{"process_id": "flaky"})
		if st.m["stopped"] != true {
			t.Fatalf("stop: %s", st.text)
		}
		for _, e := range s.call("ps", nil).m["processes"].([]any) {
			if e := e.(map[string]any); e["status"] == "running" || e["restart_pending"] == true {
				t.Errorf("after stop: %v", e)
			}
		}
		if b, _ := os.ReadFile(counter); string(b) != "5" {
			t.Errorf("runs counted %q, want 5", b)
		}
		// wait_for follows a server that crashes twice before it stays up.
		counter2 := filepath.Join(t.TempDir(), "runs")
		r = s.exec(helper("devserver", "0", devURL, "crash-runs=2", "counter="+counter2),
			map[string]any{"name": "flaky2", "max_retries": 3, "retry_delay_ms": 20, "wait_for": `run \d+: up`})
		if r.m["verified"] != true || r.str("matched") != "run 3: up" || !strings.Contains(r.text, "restarted 2 time") {
			t.Errorf("wait_for across restarts: %s", r.text)
		}
		if r := s.exec("true", map[string]any{"max_retries": 1}); !r.isError || !strings.Contains(r.str("error"), "name") {
			t.Errorf("restart policy without name: %s", r.text)
		}
	})
}

// stop all ends every running process at once and reports each.
//
// Spec: shell-yeah: "stop_all_shelles: Attempts to stop all managed processes."
func TestStopAll(t *testing.T) {
	forEachProtocol(t, nil, func(t *testing.T, s *server) {
		var ids []string
		for i := range 3 {
			r := s.exec(helper("devserver", "0", devURL), map[string]any{"name": fmt.Sprint("srv", i), "wait_for": "ready"})
			ids = append(ids, r.str("process_id"))
		}
		stubborn := s.exec(helper("ignore-term"), map[string]any{"wait_for": "ready"})
		ids = append(ids, stubborn.str("process_id"))
		s.exec("true", nil).mustStatus(t, "completed") // finished: not in the results
		start := time.Now()
		r := s.call("stop", map[string]any{"all": true, "force_after_ms": 300})
		if r.isError || r.m["stopped"] != true {
			t.Fatalf("stop all: %s", r.text)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("stop all took %v; it should stop them concurrently", d)
		}
		var got []string
		for _, e := range r.m["results"].([]any) {
			e := e.(map[string]any)
			got = append(got, e["process_id"].(string))
			if e["stopped"] != true || e["status"] != "stopped" {
				t.Errorf("result %v", e)
			}
			if e["process_id"] == stubborn.str("process_id") && e["forced"] != true {
				t.Errorf("the SIGTERM-immune one was not forced: %v", e)
			}
		}
		slices.Sort(got)
		slices.Sort(ids)
		if !slices.Equal(got, ids) {
			t.Errorf("results for %v, want %v", got, ids)
		}
		if ps := s.call("ps", map[string]any{"include_completed": false}); len(ps.m["processes"].([]any)) != 0 {
			t.Errorf("still running: %s", ps.text)
		}
	})
}

// Finished records expire on their own; a purged name is unknown, never an
// invented status.
//
// Spec: shell-yeah Features: "Automatic Purging: Stopped processes are automatically purged from the process list".
func TestPurgeExpiresRecords(t *testing.T) {
	forEachProtocol(t, []string{"YIELDSHELL_PURGE_AFTER_MS=100"}, func(t *testing.T, s *server) {
		s.exec("echo done", map[string]any{"name": "short"}).mustStatus(t, "completed")
		eventually(t, 10*time.Second, "the record to be purged", func() bool {
			r := s.call("read", map[string]any{"process_id": "short"})
			return r.isError && strings.Contains(r.str("error"), "Unknown process_id")
		})
		if r := s.call("ps", nil); len(r.m["processes"].([]any)) != 0 {
			t.Errorf("ps after purge: %s", r.text)
		}
	})
}

// ps carries the server's own health.
//
// Spec: shell-yeah: "health_check: Provides a status summary of the process manager itself."
func TestHealthInPs(t *testing.T) {
	forEachProtocol(t, []string{"YIELDSHELL_MAX_PROCESSES=7"}, func(t *testing.T, s *server) {
		s.exec("sleep 30", map[string]any{"yield_ms": 0})
		s.exec("true", nil)
		h, _ := s.call("ps", nil).m["server"].(map[string]any)
		if h == nil || h["name"] != "yieldshell" || h["version"] == "" || h["running"] != 1.0 || h["total"] != 2.0 ||
			h["max_processes"] != 7.0 || h["uptime_ms"].(float64) <= 0 || h["toolset"] != "default" ||
			!slices.Contains(h["blocked_side_effects"].([]any), any("RUNS_INLINE_CODE")) {
			t.Errorf("health: %v", h)
		}
	})
}

// With YIELDSHELL_LOG_DIR, the clean log is also on disk, readable only by
// the user, and answers say where and how to follow it.
//
// Pipe-mode output keeps what the program wrote, colours included, but
// never a control string: a clipboard write (OSC 52), a title or a DCS
// would otherwise reach an operator's terminal through tail -F, logs and
// attach (issue 16 item 8).
// Spec: issue 16 item 8: "pipe-mode output and disk logs keep raw escape sequences (clipboard and title escapes reach an operator's terminal through tail -F, logs and attach)."
func TestPipeModeStripsControlStrings(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "logs")
	forEachProtocolInTurn(t, []string{"YIELDSHELL_LOG_DIR=" + dir}, func(t *testing.T, s *server) {
		r := s.exec(`printf 'a\033]52;c;ZXZpbA==\007b\033]2;pwned\033\\c\033P1$r\033\\\033[31mred\033[0m\n'`,
			map[string]any{"name": "esc", "tty": false}).mustStatus(t, "completed")
		const want = "abc\033[31mred\033[0m\n"
		if r.str("stdout") != want {
			t.Errorf("stdout = %q, want %q", r.str("stdout"), want)
		}
		var b []byte
		eventually(t, 10*time.Second, "the log file to be complete", func() bool {
			b, _ = os.ReadFile(r.str("log_path"))
			return strings.Contains(string(b), "ended by exit ---")
		})
		// (The header line quotes the command as text, without ESC bytes.)
		if log := string(b); !strings.Contains(log, "\n"+want) || strings.Contains(log, "\033]") || strings.Contains(log, "\033P") {
			t.Errorf("log file:\n%q", log)
		}
	})
}

// Spec: shell-yeah: responses carry "log_file_path" and "tail_command" for following a process's log.
func TestLogsOnDisk(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "logs")
	forEachProtocolInTurn(t, []string{"YIELDSHELL_LOG_DIR=" + dir, "YS_SECRET_TOKEN=hunter2hunter2"}, func(t *testing.T, s *server) {
		r := s.exec(`printf '\033[32mgreen\033[0m 0 pct\r100 pct done\n'; echo "token=$YS_SECRET_TOKEN"`, map[string]any{"name": "build"}).mustStatus(t, "completed")
		path := r.str("log_path")
		if path != filepath.Join(dir, "build.log") || r.str("tail_command") != "tail -n 100 -F '"+path+"'" {
			t.Fatalf("answer: %s", r.text)
		}
		var b []byte
		eventually(t, 10*time.Second, "the log file to be complete", func() bool {
			b, _ = os.ReadFile(path)
			return strings.Contains(string(b), "ended by exit ---")
		})
		log := string(b)
		if !strings.Contains(log, "\n100 pct done\n") || strings.Contains(log, "\033") || strings.Contains(log, "\r") ||
			strings.Contains(log, "hunter2") || !strings.Contains(log, "[REDACTED:YS_SECRET_TOKEN]") {
			t.Errorf("log file:\n%q", log)
		}
		for _, f := range []string{dir, path} {
			if fi, err := os.Stat(f); err != nil || fi.Mode().Perm()&0o077 != 0 {
				t.Errorf("%s: %v %v", f, fi.Mode(), err)
			}
		}
	})
}

// A log file gets the rows still on the screen once the output has gone
// quiet, without anyone reading the process: tail -F follows a program that
// redrew its progress and went quiet, with the final state only.
//
// Spec: issue 14 item 4 (a log that follows the screen), shell-yeah's tail_command.
func TestLogFileFollowsTheScreen(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "logs")
	runs := 0
	forEachProtocolInTurn(t, []string{"YIELDSHELL_LOG_DIR=" + dir}, func(t *testing.T, s *server) {
		runs++
		name := "bar" + strconv.Itoa(runs)
		r := waiting(t, s.exec(`stty -echo; read x; printf 'A: 0%%\n\033[1A\rA: 9%%\033[K\n'; exec sleep 30`,
			map[string]any{"name": name, "yield_ms": longYield}), "password")
		id := r.str("process_id")
		t.Cleanup(func() { s.stopQuietly(id) })
		s.call("write", map[string]any{"process_id": id, "input": "go", "newline": true, "yield_ms": 0})
		var b []byte
		eventually(t, 10*time.Second, "the redrawn row in the log file", func() bool {
			b, _ = os.ReadFile(filepath.Join(dir, name+".log"))
			return strings.Contains(string(b), "\nA: 9%\n")
		})
		if strings.Contains(string(b), "\nA: 0%\n") {
			t.Errorf("log file has the row's first state:\n%s", b)
		}
	})
}
