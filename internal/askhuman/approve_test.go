package askhuman

import (
	"context"
	"errors"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yieldshell/yieldshell/internal/policy"
	"github.com/yieldshell/yieldshell/internal/session"
)

// A retry of an approval that differs from the call shown in anything is
// refused, whatever the person answered: the sessionless protocol lets a
// client send any arguments with the request state.
//
// Spec: issue 38 item 2: "a retry that differs in anything refused".
func TestApprovedRetryMustMatch(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{"YIELDSHELL_ASK": "1", "YIELDSHELL_DENY_COMMAND_REGEX": "forbidden"}
	cfg, err := policy.Load(func(k string) string { return env[k] }, dir)
	if err != nil {
		t.Fatal(err)
	}
	o, err := session.LocalOptions(nil)
	if err != nil {
		t.Fatal(err)
	}
	m, err := session.NewManager(cfg, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Shutdown(context.Background()) })
	h := New(nil, nil)
	t.Cleanup(h.Close)

	shown := session.Spec{Command: "echo forbidden", SideEffects: []string{"NONE"}, Cwd: dir}
	caps := mcp.Meta{mcp.MetaKeyClientCapabilities: map[string]any{"elicitation": map[string]any{"form": map[string]any{}}}}
	allow := mcp.InputResponseMap{inputKey: &mcp.ElicitResult{Action: "accept", Content: map[string]any{decisionField: allowOnce}}}
	for _, c := range []struct {
		name   string
		change func(*session.Spec)
	}{
		{"env added", func(s *session.Spec) { s.Env = map[string]string{"GREETING": "hi"} }},
		{"stdin added", func(s *session.Spec) { s.Stdin = "rm -rf ~\n" }},
		{"shell changed", func(s *session.Spec) { s.Shell = "sh" }},
		{"restarts added", func(s *session.Spec) { s.Name, s.Restart.MaxRetries = "x", 5 }},
		{"command changed", func(s *session.Spec) { s.Command += " more" }},
		{"same", func(*session.Spec) {}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, refusal := m.Askable(shown)
			if refusal != nil {
				t.Fatal(refusal)
			}
			_, startErr := m.Start(t.Context(), shown)
			ask := h.AskApproval(&mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Meta: caps}}, cfg, m, shown, startErr)
			if ask == nil {
				t.Fatalf("not asked about %v", startErr)
			}
			retry := shown
			c.change(&retry)
			ok, err := h.Approved(&mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{
				RequestState: ask.RequestState, InputResponses: allow}}, &retry)
			if !ok {
				t.Fatal("not taken as the retry")
			}
			if c.name == "same" {
				if err != nil || len(retry.Waived) == 0 || retry.ShownCwd == nil {
					t.Errorf("the call shown, allowed: %v, waived %v", err, retry.Waived)
				}
				return
			}
			if _, isRefusal := errors.AsType[*policy.Refusal](err); !isRefusal || len(retry.Waived) > 0 {
				t.Errorf("a retry with %s: %v, waived %v", c.name, err, retry.Waived)
			}
		})
	}
}
