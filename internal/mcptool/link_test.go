package mcptool

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A handler's links follow the answer's JSON text; a handler's own text
// stays as it is.
func TestAddKeepsLinksAfterText(t *testing.T) {
	type out struct {
		A string `json:"a"`
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "0"}, nil)
	Add(srv, &mcp.Tool{Name: "linked"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, out, error) {
		return Linked(LogLink("proc_1", "web"), LogLink("proc_2", "")), out{A: "<&>"}, nil
	})
	Add(srv, &mcp.Tool{Name: "own"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, out, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "mine"}}}, out{}, nil
	})
	st, ct := mcp.NewInMemoryTransports()
	if _, err := srv.Connect(t.Context(), st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "0"}, nil).Connect(t.Context(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "linked"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Content) != 3 {
		t.Fatalf("content %+v", res.Content)
	}
	if tc, ok := res.Content[0].(*mcp.TextContent); !ok || tc.Text != `{"a":"<&>"}` {
		t.Errorf("first content %+v", res.Content[0])
	}
	for i, want := range []string{"yieldshell://process/proc_1/log", "yieldshell://process/proc_2/log"} {
		if l, ok := res.Content[i+1].(*mcp.ResourceLink); !ok || l.URI != want {
			t.Errorf("content %d: %+v, want a link to %s", i+1, res.Content[i+1], want)
		}
	}
	res, err = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "own"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Content) != 1 || res.Content[0].(*mcp.TextContent).Text != "mine" {
		t.Errorf("own text: %+v", res.Content)
	}
}

func TestProcessURIEscapes(t *testing.T) {
	for ref, want := range map[string]string{
		"proc_0123456789ab": "yieldshell://process/proc_0123456789ab/log",
		"a/b":               "yieldshell://process/a%2Fb/log",
		"my server":         "yieldshell://process/my%20server/log",
		"..":                "yieldshell://process/%2E%2E/log",
		".":                 "yieldshell://process/%2E/log",
		"...":               "yieldshell://process/.../log",
		"x?since_seq=1#f":   "yieldshell://process/x%3Fsince_seq=1%23f/log",
	} {
		if got := ProcessURI(ref, ViewLog); got != want {
			t.Errorf("ProcessURI(%q) = %q, want %q", ref, got, want)
		}
	}
}
