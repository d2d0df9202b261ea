//go:build unix

package conformance

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestMcpc drives the binary with mcpc (Apify's MCP command-line client,
// 0.2 here) over stdio and --http: a session connects, exec runs and
// answers one content item, and mcpc's failing roots/list under
// YIELDSHELL_ALLOWED_CWDS=roots is refused saying the client's answer was
// an error (issue 41 items 1 and 11). Skips when mcpc is not installed.
func TestMcpc(t *testing.T) {
	if _, err := exec.LookPath("mcpc"); err != nil {
		t.Skip("mcpc is not installed")
	}
	home := t.TempDir()
	mcpc := func(args ...string) (string, bool) {
		t.Helper()
		cmd := exec.CommandContext(t.Context(), "mcpc", args...)
		cmd.Dir = home
		cmd.Env = append(os.Environ(), "HOME="+home, "GORACE=atexit_sleep_ms=0")
		cmd.WaitDelay = 5 * time.Second
		out, err := cmd.CombinedOutput()
		return string(out), err == nil
	}
	call := func(t *testing.T, session, command string) map[string]any {
		t.Helper()
		out, _ := mcpc("--json", session, "tools-call", "exec", "command:="+command, `side_effects:=["NONE"]`)
		var res struct {
			Content           []any          `json:"content"`
			StructuredContent map[string]any `json:"structuredContent"`
		}
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatalf("exec through mcpc: %v\n%s", err, out)
		}
		if len(res.Content) != 1 {
			t.Errorf("exec answered %d content items, want 1", len(res.Content))
		}
		return res.StructuredContent
	}
	connect := func(t *testing.T, session string, args ...string) {
		t.Helper()
		if out, ok := mcpc(append([]string{"connect"}, append(args, session)...)...); !ok {
			t.Fatalf("mcpc connect: %s", out)
		}
		t.Cleanup(func() { mcpc("close", session) })
	}
	t.Run("stdio", func(t *testing.T) {
		cfg, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
			"open":     map[string]any{"command": binPath},
			"confined": map[string]any{"command": binPath, "env": map[string]string{"YIELDSHELL_ALLOWED_CWDS": "roots"}},
		}})
		path := filepath.Join(home, "mcp.json")
		if err := os.WriteFile(path, cfg, 0o600); err != nil {
			t.Fatal(err)
		}
		connect(t, "@open", path+":open")
		if out := call(t, "@open", "echo via mcpc"); out["stdout"] != "via mcpc\n" {
			t.Errorf("exec: %v", out)
		}
		connect(t, "@confined", path+":confined")
		if e, _ := call(t, "@confined", "pwd")["error"].(string); !strings.Contains(e, "answered roots/list with an error") {
			t.Errorf("exec confined to mcpc's roots: %q", e)
		}
	})
	t.Run("http", func(t *testing.T) {
		h := startHTTP(t, t.Context())
		connect(t, "@web", h.url, "--header", "Authorization: Bearer "+httpToken)
		if out := call(t, "@web", "echo over http"); out["stdout"] != "over http\n" {
			t.Errorf("exec: %v", out)
		}
	})
}
