package conformance

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yieldshell/yieldshell/internal/testdir"
)

// The tools beyond exec and stop on the Windows engine, under cmd.exe in
// pipe mode (under wine a pseudo console's child gets no console handles:
// docs/platforms.md).
//
// Spec: issue 18 item 2: "Every tool, the clean log, the rendered screen, sequence positions, policy ..., redaction, names, wait_for, restarts, disk logs, progress, cancellation and HTTP mode work on Windows."
func TestWindowsTools(t *testing.T) {
	pipe := func(kv ...any) map[string]any {
		m := map[string]any{"tty": false}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}

	t.Run("a prompt waits for write", func(t *testing.T) {
		s := start(t, "2025-06-18")
		// %answer% is expanded when cmd reads the line (still unset); call
		// expands it again once set /p has read it.
		r := s.exec(`set /p answer=Continue? [y/N] & call echo answered %answer%`, pipe("yield_ms", 20000)).mustStatus(t, "backgrounded")
		if r.str("yield_reason") != "input_wait" || !strings.Contains(r.str("stdout"), "Continue? [y/N]") {
			t.Errorf("the prompt did not end the exec early: %s", r.text)
		}
		w := s.call("write", map[string]any{"process_id": r.str("process_id"), "input": "y", "newline": true, "yield_ms": 20000})
		if w.str("status") != "completed" || !strings.Contains(w.str("stdout"), "answered y") || w.num("exit_code") != 0 {
			t.Errorf("write: %s", w.text)
		}
	})

	t.Run("wait until and read since", func(t *testing.T) {
		s := start(t, "2025-06-18")
		r := s.exec(`set /p line= & call echo got %line%`, pipe("yield_ms", 0)).mustStatus(t, "backgrounded")
		id := r.str("process_id")
		if w := s.call("write", map[string]any{"process_id": id, "input": "later", "newline": true}); w.m["ok"] != true {
			t.Fatalf("write: %s", w.text)
		}
		w := s.call("wait", map[string]any{"process_id": id, "until": `got \w+`, "timeout_ms": 20000})
		if w.str("yield_reason") != "pattern" || w.str("matched") != "got later" {
			t.Errorf("wait until: %s", w.text)
		}
		rd := s.call("read", map[string]any{"process_id": id, "since_seq": r.num("next_seq")})
		if !strings.Contains(rd.str("stdout"), "got later") || rd.num("start_seq") != r.num("next_seq") {
			t.Errorf("read since %v: %s", r.num("next_seq"), rd.text)
		}
	})

	t.Run("names, wait_for and restart", func(t *testing.T) {
		s := start(t, "2025-06-18")
		dir := testdir.New(t)
		first := s.exec("echo up& "+winCmd("sleep", dir), pipe("name", "web", "wait_for", "^up$"))
		if first.m["verified"] != true || first.str("name") != "web" {
			t.Fatalf("exec with wait_for: %s", first.text)
		}
		if again := s.exec("echo twice", pipe("name", "Web")); !again.isError || again.str("existing_process_id") != first.str("process_id") {
			t.Errorf("a second process under a running name: %s", again.text)
		}
		r := s.call("restart", map[string]any{"process_id": "web", "wait_for": "^up$", "force_after_ms": 1000})
		if r.isError || r.str("restarted_from") != first.str("process_id") || r.m["verified"] != true {
			t.Fatalf("restart: %s", r.text)
		}
		if old := s.call("read", map[string]any{"process_id": first.str("process_id")}); old.str("ended_by") != "restart" {
			t.Errorf("the old run: %s", old.text)
		}
		if ps := s.call("ps", nil); !strings.Contains(ps.text, r.str("process_id")) {
			t.Errorf("ps: %s", ps.text)
		}
		if st := s.call("stop", map[string]any{"process_id": "web", "force_after_ms": 1000}); st.m["stopped"] != true {
			t.Errorf("stop: %s", st.text)
		}
		for _, pid := range pids(dir) {
			awaitGone(t, pid, 15*time.Second)
		}
	})

	t.Run("disk log, redacted", func(t *testing.T) {
		logs := filepath.Join(testdir.New(t), "logs")
		s := start(t, "2025-06-18", "YIELDSHELL_LOG_DIR="+logs, "YS_SECRET_TOKEN=hunter2hunter2")
		r := s.exec("echo token=%YS_SECRET_TOKEN%", pipe("name", "build")).mustStatus(t, "completed")
		path := r.str("log_path")
		if path != filepath.Join(logs, "build.log") || !strings.Contains(r.str("tail_command"), "Get-Content") {
			t.Errorf("log_path and tail_command: %s", r.text)
		}
		if strings.Contains(r.text, "hunter2") {
			t.Errorf("the answer shows the secret: %s", r.text)
		}
		var b []byte
		eventually(t, 20*time.Second, "the log file to be complete", func() bool {
			b, _ = os.ReadFile(path)
			return strings.Contains(string(b), "ended by exit ---")
		})
		if log := string(b); strings.Contains(log, "hunter2") || !strings.Contains(log, "token=[REDACTED:YS_SECRET_TOKEN]") {
			t.Errorf("log file:\n%s", log)
		}
	})

	t.Run("progress, then cancel", func(t *testing.T) {
		progress := make(chan string, 16)
		client := mcp.NewClient(&mcp.Implementation{Name: "conformance", Version: "0"}, &mcp.ClientOptions{
			ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
				select {
				case progress <- r.Params.Message:
				default:
				}
			},
		})
		s, err := connectClient(t, client, "2025-06-18")
		if err != nil {
			t.Fatal(err)
		}
		dir := testdir.New(t)
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() {
			p := &mcp.CallToolParams{Name: "exec", Arguments: map[string]any{"command": "echo started& " + winCmd("sleep", dir),
				"side_effects": []string{"NONE"}, "tty": false, "name": "long", "yield_ms": 50000}}
			p.SetProgressToken("exec-tok")
			_, err := s.cs.CallTool(ctx, p)
			done <- err
		}()
		t.Cleanup(func() { s.stopQuietly("long") })
		deadline := time.After(30 * time.Second)
		for msg := ""; !strings.Contains(msg, "started"); {
			select {
			case msg = <-progress:
			case <-deadline:
				t.Fatal("no progress notification with the newest output line")
			}
		}
		cancel()
		select {
		case err := <-done:
			if err == nil {
				t.Error("the cancelled call answered without an error")
			}
		case <-time.After(10 * time.Second):
			t.Fatal("the cancelled exec did not return")
		}
		if r := s.call("read", map[string]any{"process_id": "long"}); r.str("status") != "running" {
			t.Errorf("after the cancelled exec: %s", r.text)
		}
	})

	t.Run("http", func(t *testing.T) {
		h := startHTTP(t, t.Context())
		cs, err := h.connect(httpToken)
		if err != nil {
			t.Fatalf("connecting with the token: %v", err)
		}
		defer cs.Close()
		s := &server{t: t, cs: cs}
		if r := s.exec("echo over http", pipe()).mustStatus(t, "completed"); !strings.Contains(r.str("stdout"), "over http") {
			t.Errorf("exec over http: %s", r.text)
		}
		dir := testdir.New(t)
		s.exec(winCmd("sleep", dir), pipe("yield_ms", 0))
		eventually(t, 30*time.Second, "the helper to start", func() bool { return len(pids(dir)) > 0 })
		// A killed server ends what it started: the job objects close with it.
		if err := h.cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		for _, pid := range pids(dir) {
			awaitGone(t, pid, 15*time.Second)
		}
	})
}
