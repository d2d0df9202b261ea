//go:build unix

package conformance

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// openai serves the Responses API (POST /v1/responses, streamed) as Codex
// calls it. Codex offers a server's tools in a namespace of its own; the
// requests' tools name it.
func (s *standIn) openai(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasSuffix(r.URL.Path, "/responses") || r.Method != http.MethodPost {
			http.NotFound(w, r)
			return
		}
		var req struct {
			Tools []struct {
				Type string `json:"type"`
				Name string `json:"name"`
			} `json:"tools"`
			Input []struct {
				Type   string          `json:"type"`
				Output json.RawMessage `json:"output"`
			} `json:"input"`
		}
		body, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(body, &req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		offers := false
		for _, tl := range req.Tools {
			// Codex 0.171 offers a server's tools as one namespace,
			// mcp__SERVER, whose functions the model calls by name with
			// the namespace beside it.
			if tl.Type == "namespace" && strings.Contains(tl.Name, "yieldshell") {
				s.mu.Lock()
				s.namespace = tl.Name
				s.mu.Unlock()
				offers = true
			}
		}
		prev, has := "", false
		if n := len(req.Input); n > 0 && req.Input[n-1].Type == "function_call_output" {
			has = true
			prev = contentText(req.Input[n-1].Output)
		}
		tool, args := s.turn(prev, has, offers)
		w.Header().Set("Content-Type", "text/event-stream")
		ev := func(v map[string]any) {
			b, _ := json.Marshal(v)
			fmt.Fprintf(w, "event: %s\ndata: %s\n\n", v["type"], b)
		}
		id := fmt.Sprintf("resp_%d", time.Now().UnixNano())
		ev(map[string]any{"type": "response.created", "response": map[string]any{"id": id}})
		if tool != "" {
			a, _ := json.Marshal(args)
			s.mu.Lock()
			ns := s.namespace
			s.mu.Unlock()
			ev(map[string]any{"type": "response.output_item.done", "item": map[string]any{"type": "function_call", "id": "fc_" + id,
				"call_id": "call_" + id, "name": tool, "namespace": ns, "arguments": string(a)}})
		} else {
			ev(map[string]any{"type": "response.output_item.done", "item": map[string]any{"type": "message", "role": "assistant", "id": "msg_" + id,
				"content": []any{map[string]any{"type": "output_text", "text": "done"}}}})
		}
		ev(map[string]any{"type": "response.completed", "response": map[string]any{"id": id,
			"usage": map[string]any{"input_tokens": 10, "output_tokens": 5, "total_tokens": 15}}})
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestCodex: Codex, headless (codex exec) against a stand-in model that
// plays a script of tool calls, drives the built binary over stdio: exec
// runs, and ask_human on a process comes back as a tool result (codex
// exec declines URL elicitation itself: human_declined, which the
// protocol cannot tell from a person's). Skips when codex is not
// installed.
func TestCodex(t *testing.T) {
	if _, err := exec.LookPath("codex"); err != nil {
		t.Skip("codex (Codex CLI) is not installed")
	}
	s := &standIn{script: []modelCall{
		func(string) (string, map[string]any) {
			return "exec", map[string]any{"command": "echo from codex", "side_effects": []string{"NONE"}}
		},
		execCat,
		askAboutLast,
	}}
	api := s.openai(t)
	home := t.TempDir()
	codexHome := filepath.Join(home, ".codex")
	if err := os.Mkdir(codexHome, 0o700); err != nil {
		t.Fatal(err)
	}
	config := fmt.Sprintf(`model = "gpt-standin"
model_provider = "standin"
approval_policy = "never"

[model_providers.standin]
name = "standin"
base_url = %q
wire_api = "responses"
env_key = "STANDIN_API_KEY"

[mcp_servers.yieldshell]
command = %q
tool_timeout_sec = 330
default_tools_approval_mode = "approve"
`, api.URL+"/v1", binPath)
	if err := os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	project := t.TempDir()
	cmd := exec.CommandContext(t.Context(), "codex", "exec", "--skip-git-repo-check", "Use the yieldshell tools as planned.")
	cmd.Dir = project
	cmd.Env = append(os.Environ(), "HOME="+home, "CODEX_HOME="+codexHome, "STANDIN_API_KEY=sk-standin", "GORACE=atexit_sleep_ms=0")
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	results := s.toolResults()
	if err != nil || len(results) != 3 {
		t.Fatalf("codex exec: %v; %d tool results %q\n%s", err, len(results), results, out)
	}
	if !strings.Contains(results[0], "from codex") {
		t.Errorf("exec through Codex: %s", results[0])
	}
	// codex exec declares URL elicitation and answers it with decline on
	// its own: over the protocol that is a decline, and a tool result.
	if !strings.Contains(results[2], `"yield_reason":"human_declined"`) {
		t.Errorf("ask_human under codex exec: %s", results[2])
	}
}
