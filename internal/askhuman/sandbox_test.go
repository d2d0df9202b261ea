package askhuman

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yieldshell/yieldshell/internal/policy"
	"github.com/yieldshell/yieldshell/internal/session"
)

// The retry of a sandbox question widens only what the person allowed,
// as they allowed it, for the call they were shown: a retry that differs,
// an answer that is not an allowance, or a state used up widens nothing.
//
// Spec: issue 40 item 4: "a denial can be allowed once ... or for the rest of the session; never without a person's yes."
func TestWidenedRetry(t *testing.T) {
	o, err := session.LocalOptions(nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := policy.Load(func(string) string { return "" }, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	shown := session.Spec{Command: "echo x >> /elsewhere/f", SideEffects: []string{"NONE"}, Cwd: "/w",
		Roots: &policy.Roots{Paths: []string{"/w"}}}
	paths := []string{"/elsewhere"}
	for _, c := range []struct {
		name     string
		change   func(*session.Spec)
		response *mcp.ElicitResult
		once     bool // spec.Writable set
		session  bool // the Manager's allowance grown
		refused  bool
	}{
		{"once", nil, accept(allowOnce), true, false, false},
		{"session", nil, accept(allowSession), false, true, false},
		{"deny", nil, accept(deny), false, false, false},
		{"another decision", nil, accept("allow forever"), false, false, false},
		{"decline", nil, &mcp.ElicitResult{Action: "decline"}, false, false, false},
		{"cancel", nil, &mcp.ElicitResult{Action: "cancel"}, false, false, false},
		{"no answer", nil, nil, false, false, false},
		{"command changed", func(s *session.Spec) { s.Command += "; rm -rf ~" }, accept(allowSession), false, false, true},
		{"env added", func(s *session.Spec) { s.Env = map[string]string{"BASH_ENV": "/x"} }, accept(allowOnce), false, false, true},
		{"sandbox loosened", func(s *session.Spec) { s.Sandbox = "workspace-write" }, accept(allowOnce), false, false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, err := session.NewManager(cfg, o)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { m.Shutdown(context.Background()) })
			h := New(nil, nil)
			t.Cleanup(h.Close)
			h.widenings["state"] = &widening{key: specKey(shown), paths: paths, roots: shown.Roots, first: "first answer", process: "p1", at: time.Now()}
			retry := shown
			retry.Roots = nil // asked again by the retry
			if c.change != nil {
				c.change(&retry)
			}
			responses := mcp.InputResponseMap{}
			if c.response != nil {
				responses[inputKey] = c.response
			}
			req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{RequestState: "state", InputResponses: responses}}
			w, ok := h.Widened(req, m, &retry)
			if !ok {
				t.Fatal("not taken as the retry")
			}
			allowed := c.once || c.session
			if w.Rerun != allowed || (w.First == "first answer") == (allowed || c.refused) ||
				(w.Refused != nil) != c.refused || slices.Equal(retry.Writable, paths) != c.once ||
				slices.Equal(m.AllowedWrites(), paths) != c.session || allowed && retry.Roots != shown.Roots {
				t.Errorf("widened %+v: writable %v, session %v, roots %v", w, retry.Writable, m.AllowedWrites(), retry.Roots)
			}
			if _, isRefusal := errors.AsType[*policy.Refusal](w.Refused); c.refused && !isRefusal {
				t.Errorf("refused with %v", w.Refused)
			}
			if _, again := h.Widened(req, m, &retry); again {
				t.Error("the state worked twice")
			}
		})
	}
}

func accept(decision string) *mcp.ElicitResult {
	return &mcp.ElicitResult{Action: "accept", Content: map[string]any{decisionField: decision}}
}
