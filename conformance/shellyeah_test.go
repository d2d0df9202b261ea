//go:build unix

package conformance

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// The mcp-shell-yeah toolset, driven end to end: a dev server started,
// verified, checked, typed into, restarted, crashed, waited for, listed and
// stopped, with the peer's parameter names and response fields.
//
// Spec: DESIGN Toolsets: "YIELDSHELL_TOOLSET=shell-yeah (or all) exposes the mcp-shell-yeah tool names and parameters on the same engine".
func TestShellYeahToolset(t *testing.T) {
	logs := filepath.Join(t.TempDir(), "logs")
	forEachProtocolInTurn(t, []string{"YIELDSHELL_TOOLSET=shell-yeah", "YIELDSHELL_LOG_DIR=" + logs}, func(t *testing.T, s *server) {
		tools, err := s.cs.ListTools(t.Context(), nil)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tool := range tools.Tools {
			names = append(names, tool.Name)
		}
		if len(names) != 12 || !slices.Contains(names, "start_shell") || !slices.Contains(names, "ask_human") || slices.Contains(names, "exec") {
			t.Fatalf("tools: %v", names)
		}
		wd := t.TempDir()
		helperArgs := func(args ...string) []string { return append([]string{"ys-helper", "devserver"}, args...) }

		h := s.call("health_check", nil)
		if h.str("status") != "ok" || h.num("active_shells") != 0 || h.str("server_name") != "yieldshell" {
			t.Errorf("health: %s", h.text)
		}

		// Verification sees the line printed after 200 ms (after the URL).
		st := s.call("start_shell_with_verification", map[string]any{
			"command": `"$YS_HELPER_BIN"`, "args": helperArgs("200", devURL), "workingDirectory": wd,
			"label": "Web Server", "host": "cursor", "verification_pattern": `^ready$`, "verification_timeout_ms": 20000,
		})
		if st.isError || st.str("label") != "web-server" || st.str("status") != "running" || st.m["verified"] != true ||
			st.m["isVerificationEnabled"] != true || st.num("pid") <= 0 {
			t.Fatalf("start: %s", st.text)
		}
		if urls, _ := st.m["detected_urls"].([]any); len(urls) != 1 || urls[0] != devURL {
			t.Errorf("detected_urls: %v", st.m["detected_urls"])
		}
		if ai := st.str("ai_instructions"); !strings.Contains(ai, "tail_command") || strings.Contains(strings.ToUpper(ai), "MANDATORY") ||
			!strings.HasPrefix(st.str("tail_command"), "tail ") || st.str("log_file_path") == "" {
			t.Errorf("cursor hint: %s", st.text)
		}
		firstPid := st.num("pid")

		// A duplicate label is refused while it runs.
		if dup := s.call("start_shell", map[string]any{"command": "sleep 30", "workingDirectory": wd, "label": "web server"}); !dup.isError || dup.str("rule") != "name" {
			t.Errorf("duplicate: %s", dup.text)
		}

		// check_shell and send_input, by the label as the user wrote it (the
		// terminal echoes the input, so the error shows twice).
		c := s.call("check_shell", map[string]any{"label": "Web Server", "log_lines": 5})
		if c.isError || c.str("status") != "running" || !slices.Contains(c.m["logs"].([]any), any("ready")) ||
			!strings.Contains(c.str("message"), "URLs (1)") {
			t.Errorf("check: %s", c.text)
		}
		in := s.call("send_input", map[string]any{"label": "web-server", "input": "say Error: port in use"})
		if in.isError || !slices.Contains(in.m["logs"].([]any), any("Error: port in use")) || !strings.Contains(in.str("message"), "Errors (2)") {
			t.Errorf("send_input: %s", in.text)
		}

		// restart_shell: new pid, same label, verified again.
		r := s.call("restart_shell", map[string]any{"label": "web-server"})
		if r.isError || r.str("status") != "running" || r.num("pid") == firstPid || r.m["verified"] != true || r.num("restarts") != 1 {
			t.Fatalf("restart: %s", r.text)
		}

		// A crash is "crashed" with its exit code, and wait_for_shell sees it.
		s.call("send_input", map[string]any{"label": "web-server", "input": "crash"})
		w := s.call("wait_for_shell", map[string]any{"label": "web-server", "target_status": "crashed", "timeout_seconds": 20})
		if w.str("final_status") != "crashed" || w.num("exitCode") != 3 || w.m["timed_out"] != false {
			t.Errorf("wait crashed: %s", w.text)
		}
		if c := s.call("check_shell", map[string]any{"label": "web-server"}); c.str("status") != "crashed" || c.num("exitCode") != 3 {
			t.Errorf("check after crash: %s", c.text)
		}
		all := s.call("get_all_loglines", map[string]any{"label": "web-server"})
		if all.isError || !slices.Contains(all.m["logs"].([]any), any("crashing")) || all.num("line_count") < 3 {
			t.Errorf("get_all_loglines: %s", all.text)
		}

		// Crash restarts with the peer's parameters, waited through.
		counter := filepath.Join(t.TempDir(), "runs")
		st = s.call("start_shell_with_verification", map[string]any{
			"command": `"$YS_HELPER_BIN"`, "args": helperArgs("0", devURL, "crash-runs=1", "counter="+counter), "workingDirectory": wd,
			"label": "api", "verification_pattern": "run 1", "max_retries": 2, "retry_delay_ms": 50,
		})
		if st.isError {
			t.Fatalf("start api: %s", st.text)
		}
		eventually(t, 20*time.Second, "the api to come back up", func() bool {
			w := s.call("wait_for_shell", map[string]any{"label": "api", "target_status": "running", "timeout_seconds": 5})
			c := s.call("check_shell", map[string]any{"label": "api"})
			return w.str("final_status") == "running" && slices.Contains(c.m["logs"].([]any), any("run 2: up"))
		})

		// list_shells: the newest run of each label; stop_shell; unknown labels.
		l := s.call("list_shells", map[string]any{"log_lines": 2})
		var labels []string
		for _, e := range l.m["shells"].([]any) {
			labels = append(labels, e.(map[string]any)["label"].(string))
		}
		slices.Sort(labels)
		if !slices.Equal(labels, []string{"api", "web-server"}) {
			t.Errorf("list_shells labels %v: %s", labels, l.text)
		}
		if sp := s.call("stop_shell", map[string]any{"label": "api"}); sp.isError || sp.str("status") != "stopped" {
			t.Errorf("stop_shell: %s", sp.text)
		}
		if w := s.call("wait_for_shell", map[string]any{"label": "api", "target_status": "stopped"}); w.str("final_status") != "stopped" {
			t.Errorf("wait stopped: %s", w.text)
		}
		for _, tool := range []string{"check_shell", "stop_shell", "get_all_loglines", "restart_shell", "wait_for_shell"} {
			if u := s.call(tool, map[string]any{"label": "never-started"}); !u.isError || u.str("status") == "stopped" {
				t.Errorf("%s of an unknown label: %s", tool, u.text)
			}
		}

		// Without a label one is made from the command.
		q := s.call("start_shell", map[string]any{"command": "echo", "args": []string{"hello world"}, "workingDirectory": wd})
		if q.isError || q.str("label") != "echo-'hello-world'" || !slices.Contains(q.m["shellLogs"].([]any), any("hello world")) {
			t.Errorf("start without label: %s", q.text)
		}
		// A shell that asks something says so, with the prompt.
		s.call("start_shell", map[string]any{"command": "sh", "args": []string{"-c", `printf "Name? "; read n; echo "hi $n"`},
			"workingDirectory": wd, "label": "asker"})
		eventually(t, 10*time.Second, "isProbablyAwaitingInput", func() bool {
			c := s.call("check_shell", map[string]any{"label": "asker"})
			return c.m["isProbablyAwaitingInput"] == true && c.str("prompt") == "Name? "
		})
		sa := s.call("stop_all_shells", nil)
		if sa.isError || sa.num("error_count") != 0 {
			t.Errorf("stop_all_shells: %s", sa.text)
		}
	})
}
