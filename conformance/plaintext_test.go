//go:build unix

package conformance

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// plainMarker is output full of the characters json.Marshal escapes for
// HTML.
const plainMarker = "<tag> a && b >>>"

// TestTextIsPlainJSON calls every tool of both toolsets, with output and
// input that hold <, > and &, and checks the text content the model reads:
// it is the answer's JSON without HTML escaping (no \u003c, \u003e,
// \u0026), and it decodes to the same value as structuredContent
// (list_shells' text is the peer's bare array of shells).
//
// Spec: issue 29 item 3: "every tool result's text content is the answer's
// JSON without HTML escaping, identical in meaning to structuredContent".
func TestTextIsPlainJSON(t *testing.T) {
	slow(t, "every tool of both toolsets, with their quiet periods and graces")
	logs := filepath.Join(t.TempDir(), "logs")
	forEachProtocolInTurn(t, []string{"YIELDSHELL_TOOLSET=all", "YIELDSHELL_LOG_DIR=" + logs, "YIELDSHELL_RESOURCE_LINKS=1"}, func(t *testing.T, s *server) {
		list, err := s.cs.ListTools(t.Context(), nil)
		if err != nil {
			t.Fatal(err)
		}
		called := map[string]bool{}
		call := func(tool string, args map[string]any) map[string]any {
			t.Helper()
			called[tool] = true
			return plainCall(t, s, tool, args)
		}
		wd := t.TempDir()
		echo := "echo '" + plainMarker + "'"

		// The default toolset.
		if out := call("exec", map[string]any{"command": echo, "side_effects": []string{"NONE"}}); out["stdout"] != plainMarker+"\n" {
			t.Errorf("exec stdout = %q", out["stdout"])
		}
		bg := call("exec", map[string]any{"command": echo + "; cat", "side_effects": []string{"NONE"}, "name": "plain",
			"wait_for": ">>>"})
		id, _ := bg["process_id"].(string)
		if bg["status"] != "backgrounded" || id == "" {
			t.Fatalf("exec: %v", bg)
		}
		t.Cleanup(func() { s.stopQuietly("plain") })
		call("read", map[string]any{"process_id": id})
		call("write", map[string]any{"process_id": id, "input": "<in> && >>>", "newline": true, "yield_ms": 200})
		call("wait", map[string]any{"process_id": id, "until": "in>", "timeout_ms": 10000})
		call("read", map[string]any{"process_id": id, "view": "screen"})
		call("ps", nil)
		call("restart", map[string]any{"process_id": "plain", "wait_for": ">>>", "force_after_ms": 100})
		call("stop", map[string]any{"process_id": "plain", "signal": "SIGKILL"})
		call("read", map[string]any{"process_id": "<none> && >"}) // an error answer
		call("ask_human", map[string]any{"process_id": "<none> && >", "message": "<m> & >"})
		call("cleanup", map[string]any{"completed_older_than_ms": 0, "stopped_older_than_ms": 0})

		// The mcp-shell-yeah toolset.
		start := map[string]any{"command": "sh", "args": []string{"-c", echo + "; cat"}, "workingDirectory": wd}
		call("start_shell", with(start, "label", "sy"))
		t.Cleanup(func() { s.stopQuietly("sy") })
		call("wait_for_shell", map[string]any{"label": "sy", "target_status": "running"})
		call("send_input", map[string]any{"label": "sy", "input": "<in> && >>>"})
		call("check_shell", map[string]any{"label": "sy"})
		call("get_all_loglines", map[string]any{"label": "sy"})
		call("list_shells", map[string]any{"log_lines": 5})
		call("health_check", nil)
		call("restart_shell", map[string]any{"label": "sy"})
		call("start_shell_with_verification", with(with(start, "label", "sv"), "verification_pattern", ">>>"))
		t.Cleanup(func() { s.stopQuietly("sv") })
		call("stop_shell", map[string]any{"label": "sy", "force": true})
		call("check_shell", map[string]any{"label": "<none> && >"}) // an error answer
		call("stop_all_shells", nil)

		for _, tool := range list.Tools {
			if !called[tool.Name] {
				t.Errorf("tool %s was not called", tool.Name)
			}
		}
	})
}

// plainCall calls a tool and checks its text content; it returns the
// structured answer (nil when there is none).
func plainCall(t *testing.T, s *server, tool string, args map[string]any) map[string]any {
	t.Helper()
	res, err := s.cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	var text string
	var links []*mcp.ResourceLink
	for _, c := range res.Content {
		if l, ok := c.(*mcp.ResourceLink); ok {
			links = append(links, l)
			continue
		}
		tc, ok := c.(*mcp.TextContent)
		if !ok {
			t.Errorf("%s: content %T, want text and resource links", tool, c)
			continue
		}
		text += tc.Text
		for _, esc := range []string{`\u003c`, `\u003e`, `\u0026`} {
			if strings.Contains(tc.Text, esc) {
				t.Errorf("%s: text content holds %s:\n%s", tool, esc, tc.Text)
			}
		}
	}
	if len(res.Content)-len(links) != 1 {
		t.Errorf("%s: %d text content blocks, want one", tool, len(res.Content)-len(links))
	} else if _, ok := res.Content[0].(*mcp.TextContent); !ok {
		t.Errorf("%s: the text is not the first content", tool)
	}
	if res.StructuredContent == nil {
		if !res.IsError {
			t.Errorf("%s: no structured content", tool)
		}
		return nil
	}
	var structured map[string]any
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &structured); err != nil {
		t.Fatalf("%s: structured content is not an object: %v", tool, err)
	}
	var fromText any
	if err := json.Unmarshal([]byte(text), &fromText); err != nil {
		t.Fatalf("%s: text content is not JSON: %v\n%s", tool, err, text)
	}
	want := any(structured)
	if tool == "list_shells" {
		want = structured["shells"]
	}
	if !reflect.DeepEqual(fromText, want) {
		t.Errorf("%s: text and structured content differ:\ntext:       %s\nstructured: %s", tool, text, b)
	}
	checkLinks(t, tool, res.IsError, structured, links)
	if slices.Contains([]string{"exec", "read", "check_shell", "get_all_loglines", "list_shells", "ps"}, tool) &&
		!res.IsError && !strings.Contains(text, plainMarker) && !strings.Contains(text, "<in> && >>>") {
		t.Errorf("%s: the output is not in the text as printed:\n%s", tool, text)
	}
	return structured
}

// with returns a copy of m with k set to v.
func with(m map[string]any, k string, v any) map[string]any {
	c := make(map[string]any, len(m)+1)
	for k, v := range m {
		c[k] = v
	}
	c[k] = v
	return c
}

// checkLinks checks the resource links beside an answer's text: exec, read
// and ps answers link to the log of each process they are about, in the
// order they name them, and nothing else does (issue 34 item 4).
func checkLinks(t *testing.T, tool string, isError bool, structured map[string]any, links []*mcp.ResourceLink) {
	t.Helper()
	var ids []string
	switch {
	case isError:
	case tool == "exec" || tool == "read":
		id, _ := structured["process_id"].(string)
		ids = append(ids, id)
	case tool == "ps":
		for _, p := range structured["processes"].([]any) {
			ids = append(ids, p.(map[string]any)["process_id"].(string))
		}
	}
	var got []string
	for _, l := range links {
		got = append(got, l.URI)
		if l.Name == "" || l.MIMEType != "text/plain" {
			t.Errorf("%s: link %+v", tool, l)
		}
	}
	var want []string
	for _, id := range ids {
		want = append(want, "yieldshell://process/"+id+"/log")
	}
	if !slices.Equal(got, want) {
		t.Errorf("%s: resource links %v, want %v", tool, got, want)
	}
}
