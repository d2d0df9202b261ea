package conformance

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestErrorsNameTheKindNotTheValue sends each argument an agent controls,
// badly, carrying a marker and raw control bytes: the refusal says what was
// wrong and never carries the value back (issue 38).
func TestErrorsNameTheKindNotTheValue(t *testing.T) {
	const mark = "Zq9MARK\x1b[2J\r"
	s := start(t, "", "YIELDSHELL_TOOLSET=all")
	id := s.exec("sleep 60", map[string]any{"yield_ms": 0}).str("process_id")
	dir := t.TempDir()
	base := func(extra map[string]any) map[string]any {
		a := map[string]any{"command": "echo hi", "side_effects": []string{"NONE"}}
		for k, v := range extra {
			a[k] = v
		}
		return a
	}
	for _, c := range []struct {
		name, tool string
		args       map[string]any
		want       string
	}{
		{"side_effects category", "exec", base(map[string]any{"side_effects": []string{mark}}), "side_effects"},
		{"side_effects type", "exec", base(map[string]any{"side_effects": mark}), "side_effects"},
		{"unknown argument", "exec", base(map[string]any{"x" + mark: 1}), "takes no argument"},
		{"wait_for regex", "exec", base(map[string]any{"wait_for": "(" + mark}), "wait_for"},
		{"exec on_input", "exec", base(map[string]any{"on_input": mark}), "on_input"},
		{"until regex", "wait", map[string]any{"process_id": id, "until": "(" + mark}, "until"},
		{"unknown signal", "stop", map[string]any{"process_id": id, "signal": mark}, "signal"},
		{"unknown key", "write", map[string]any{"process_id": id, "keys": []string{mark}}, "key"},
		{"read view", "read", map[string]any{"process_id": id, "view": mark}, "view"},
		{"read streams", "read", map[string]any{"process_id": id, "streams": mark}, "streams"},
		{"read encoding", "read", map[string]any{"process_id": id, "encoding": mark}, "encoding"},
		{"verification_pattern", "start_shell", map[string]any{"command": "echo", "workingDirectory": dir, "label": "v", "verification_pattern": "(" + mark}, "verification_pattern"},
		{"start_shell on_input", "start_shell", map[string]any{"command": "echo", "workingDirectory": dir, "label": "v", "on_input": mark}, "on_input"},
		{"target_status", "wait_for_shell", map[string]any{"label": "v", "target_status": mark}, "target_status"},
		{"label", "check_shell", map[string]any{"label": mark}, "label"},
		{"since_seqs", "wait", map[string]any{"process_ids": []string{id}, "since_seqs": map[string]any{mark: 1}}, "since_seqs"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			res, err := s.cs.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
			if err != nil {
				t.Fatal(err)
			}
			// The message: the answer's error field, else its text. (Fields
			// that name what was asked, like process_id, are not messages.)
			var text string
			if m, ok := res.StructuredContent.(map[string]any); ok {
				text, _ = m["error"].(string)
			} else if len(res.Content) > 0 {
				text = res.Content[0].(*mcp.TextContent).Text
			}
			if !res.IsError {
				t.Fatalf("not refused: %s", text)
			}
			if strings.Contains(text, "Zq9MARK") || strings.Contains(text, "2J") {
				t.Errorf("the refusal echoes the value: %s", text)
			}
			if !strings.Contains(text, c.want) {
				t.Errorf("the refusal does not name %s: %s", c.want, text)
			}
		})
	}
	t.Run("unknown tool", func(t *testing.T) {
		_, err := s.cs.CallTool(t.Context(), &mcp.CallToolParams{Name: mark, Arguments: map[string]any{}})
		if err == nil || strings.Contains(err.Error(), "Zq9MARK") {
			t.Errorf("unknown tool: %v", err)
		}
	})
}
