//go:build unix

package conformance

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// askAboutLast is a call of ask_human on the process the previous
// answer names (clients may put text before the answer's JSON).
func askAboutLast(prev string) (string, map[string]any) {
	var out struct {
		ProcessID string `json:"process_id"`
	}
	_ = json.NewDecoder(strings.NewReader(prev[max(0, strings.Index(prev, "{")):])).Decode(&out)
	return "ask_human", map[string]any{"process_id": out.ProcessID, "message": "Type a line for cat."}
}

// execCat starts cat, which waits for input, for askAboutLast.
func execCat(string) (string, map[string]any) {
	return "exec", map[string]any{"command": "cat", "side_effects": []string{"NONE"}, "yield_ms": 2000}
}

// modelCall is one tool call a stand-in model makes: the tool (the server's
// name for it) and its arguments, given the text of the previous tool
// result ("" before the first).
type modelCall func(prev string) (tool string, args map[string]any)

// standIn is a local stand-in for a model's API that plays a script of
// tool calls: each request whose conversation ends in a tool result (or
// starts it) gets the next call; when the script is done it answers with
// text. It keeps every tool result the client sent back.
type standIn struct {
	mu        sync.Mutex
	script    []modelCall
	next      int
	results   []string
	prefix    string // how the client names the server's tools, e.g. "mcp__yieldshell__"
	namespace string // the namespace the client offers them in (Codex)
}

func (s *standIn) toolResults() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.results...)
}

// turn decides the answer to a request whose last tool result is prev
// (ok false: none) and which offers tools: a call, or "" for text.
func (s *standIn) turn(prev string, hasResult, offersTools bool) (tool string, args map[string]any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if hasResult {
		s.results = append(s.results, prev)
	}
	if !offersTools || s.next >= len(s.script) {
		return "", nil
	}
	if s.next > 0 && !hasResult {
		return "", nil // a side request (a title, a summary): not the conversation
	}
	tool, args = s.script[s.next](prev)
	s.next++
	return s.prefix + tool, args
}

// anthropic serves the Messages API (POST /v1/messages), streamed or not,
// as Claude Code calls it.
func (s *standIn) anthropic(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, "/v1/messages") || r.Method != http.MethodPost {
			http.NotFound(w, r)
			return
		}
		var req struct {
			Stream   bool                    `json:"stream"`
			Tools    []struct{ Name string } `json:"tools"`
			Messages []struct {
				Role    string          `json:"role"`
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if strings.HasSuffix(r.URL.Path, "/count_tokens") {
			fmt.Fprint(w, `{"input_tokens":10}`)
			return
		}
		offers := false
		for _, tl := range req.Tools {
			offers = offers || strings.HasPrefix(tl.Name, s.prefix)
		}
		prev, has := "", false
		if n := len(req.Messages); n > 0 && req.Messages[n-1].Role == "user" {
			var blocks []struct {
				Type    string          `json:"type"`
				Content json.RawMessage `json:"content"`
			}
			if json.Unmarshal(req.Messages[n-1].Content, &blocks) == nil {
				for _, b := range blocks {
					if b.Type == "tool_result" {
						has = true
						prev = contentText(b.Content)
					}
				}
			}
		}
		tool, args := s.turn(prev, has, offers)
		writeAnthropic(w, req.Stream, tool, args)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// contentText is the text of a tool result as a model API carries it: a
// string, or blocks (items) with text.
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct{ Text string }
	_ = json.Unmarshal(raw, &blocks)
	var b strings.Builder
	for _, x := range blocks {
		b.WriteString(x.Text)
	}
	return b.String()
}

func writeAnthropic(w http.ResponseWriter, stream bool, tool string, args map[string]any) {
	block := map[string]any{"type": "text", "text": "done"}
	stop := "end_turn"
	if tool != "" {
		block = map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_%d", time.Now().UnixNano()), "name": tool, "input": args}
		stop = "tool_use"
	}
	msg := map[string]any{"id": "msg_standin", "type": "message", "role": "assistant", "model": "claude-standin",
		"stop_reason": stop, "stop_sequence": nil, "usage": map[string]any{"input_tokens": 10, "output_tokens": 5}}
	if !stream {
		msg["content"] = []any{block}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(msg)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	ev := func(name string, v any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
	}
	start := map[string]any{}
	for k, v := range msg {
		start[k] = v
	}
	start["content"], start["stop_reason"] = []any{}, nil
	ev("message_start", map[string]any{"type": "message_start", "message": start})
	if tool != "" {
		input, _ := json.Marshal(args)
		ev("content_block_start", map[string]any{"type": "content_block_start", "index": 0,
			"content_block": map[string]any{"type": "tool_use", "id": block["id"], "name": tool, "input": map[string]any{}}})
		ev("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "input_json_delta", "partial_json": string(input)}})
	} else {
		ev("content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "text", "text": ""}})
		ev("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "text_delta", "text": "done"}})
	}
	ev("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	ev("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": 5}})
	ev("message_stop", map[string]any{"type": "message_stop"})
}

// claudeRun runs `claude -p` in dir against the stand-in with the MCP
// config mcp (the mcpServers object's one entry), all of yieldshell's
// tools allowed.
func claudeRun(t *testing.T, dir string, api *httptest.Server, server map[string]any) string {
	t.Helper()
	cfg, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"yieldshell": server}})
	cfgPath := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(cfgPath, cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), "claude", "-p", "Use the yieldshell tools as planned.",
		"--mcp-config", cfgPath, "--strict-mcp-config", "--allowedTools", "mcp__yieldshell",
		"--permission-mode", "bypassPermissions", "--output-format", "json", "--model", "claude-standin")
	cmd.Dir = dir
	home := t.TempDir()
	cmd.Env = append(os.Environ(), "HOME="+home, "ANTHROPIC_BASE_URL="+api.URL, "ANTHROPIC_API_KEY=sk-standin",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1", "DISABLE_TELEMETRY=1", "IS_SANDBOX=1")
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("claude -p: %v\n%s", err, out)
	}
	return string(out)
}

// TestClaudeCode: Claude Code, headless (claude -p) against a stand-in
// model that plays a script of tool calls, drives the built binary over
// stdio and over --http: its roots reach the server (pwd runs in its
// project directory, with YIELDSHELL_ALLOWED_CWDS=roots), and ask_human,
// which claude -p cannot show anyone, falls back to the link and says
// why. Skips when claude is not installed.
func TestClaudeCode(t *testing.T) {
	if _, err := exec.LookPath("claude"); err != nil {
		t.Skip("claude (Claude Code) is not installed")
	}
	need(t, "bash")
	script := func() []modelCall {
		return []modelCall{
			func(string) (string, map[string]any) {
				return "exec", map[string]any{"command": "pwd", "side_effects": []string{"NONE"}}
			},
			execCat,
			askAboutLast,
		}
	}
	check := func(t *testing.T, project string, results []string) {
		t.Helper()
		if len(results) != 3 {
			t.Fatalf("%d tool results came back, want 3: %q", len(results), results)
		}
		if !strings.Contains(results[0], `"stdout":"`+project+`\n"`) {
			t.Errorf("pwd did not run in Claude Code's project directory %s (its root): %s", project, results[0])
		}
		// claude -p either declares no URL elicitation or answers it with
		// cancel: the link comes back, with why.
		if !strings.Contains(results[2], `"url":"http`) || !strings.Contains(results[2], "show the page to the user") {
			t.Errorf("ask_human under claude -p: %s", results[2])
		}
	}
	t.Run("stdio", func(t *testing.T) {
		project, err := filepath.EvalSymlinks(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		s := &standIn{script: script(), prefix: "mcp__yieldshell__"}
		api := s.anthropic(t)
		claudeRun(t, project, api, map[string]any{"command": binPath,
			"env": map[string]string{"YIELDSHELL_ALLOWED_CWDS": "roots", "GORACE": "atexit_sleep_ms=0"}})
		check(t, project, s.toolResults())
	})
	t.Run("http", func(t *testing.T) {
		project, err := filepath.EvalSymlinks(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		h := startHTTP(t, t.Context(), "YIELDSHELL_ALLOWED_CWDS=roots")
		s := &standIn{script: script(), prefix: "mcp__yieldshell__"}
		api := s.anthropic(t)
		claudeRun(t, project, api, map[string]any{"type": "http", "url": h.url,
			"headers": map[string]string{"Authorization": "Bearer " + httpToken}})
		check(t, project, s.toolResults())
	})
}
