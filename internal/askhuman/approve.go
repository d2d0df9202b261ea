package askhuman

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yieldshell/yieldshell/internal/policy"
	"github.com/yieldshell/yieldshell/internal/session"
)

// Approvals (issue 33 item 2). With YIELDSHELL_ASK and a client that takes
// form elicitation, a start that policy refuses for askable rules only is
// put to the person once: what would run, where, and which rules refused
// it, with allow once / deny. Allowed, the retry starts it with those rules
// waived (session logs it as approved by the user); denied, or with
// anything else, the refusal stands.

// The form's one field and its choices.
const (
	decisionField = "decision"
	allowOnce     = "allow once"
	deny          = "deny"
)

// approval is a first call's question, kept for its retry.
type approval struct {
	key   string // what was asked about: the retry must ask the same
	rules []string
	why   string // the first refusal, for a denial's answer
	at    time.Time
}

// specKey identifies a start for its retry.
func specKey(s session.Spec) string {
	return fmt.Sprintf("%q %q %q %q", s.Command, s.Cwd, s.SideEffects, s.Shell)
}

// AskApproval returns the input request that asks the person to allow
// spec, which policy refused with refusal; nil when it may not be asked
// (no YIELDSHELL_ASK, a client without form elicitation, a rule a person
// may not waive): the refusal stands then.
func (h *Human) AskApproval(req *mcp.CallToolRequest, cfg *policy.Config, m *session.Manager, spec session.Spec, refusal error) *mcp.CallToolResult {
	r, ok := errors.AsType[*policy.Refusal](refusal)
	if h == nil || !cfg.Ask || !ok || !r.Askable || !formElicitation(req) || req.Params.RequestState != "" {
		return nil
	}
	asking, err := m.Askable(spec)
	if err != nil || len(asking.Refusals) == 0 {
		return nil
	}
	state := randomKey()
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil
	}
	h.sweepLocked(time.Now())
	h.approvals[state] = &approval{key: specKey(spec), rules: asking.Rules(), why: r.Message, at: time.Now()}
	h.mu.Unlock()
	var b strings.Builder
	fmt.Fprintf(&b, "The agent wants to run a command that this server's policy refused.\n\nCommand: %s\nIn: %s\n", asking.Command, asking.Cwd)
	for _, r := range asking.Refusals {
		fmt.Fprintf(&b, "Refused by %s: %s\n", r.Rule, r.Message)
	}
	b.WriteString("\nAllow it to run this once?")
	return &mcp.CallToolResult{
		InputRequests: mcp.InputRequestMap{inputKey: &mcp.ElicitParams{
			Mode:    "form",
			Message: b.String(),
			RequestedSchema: map[string]any{
				"type": "object",
				"properties": map[string]any{decisionField: map[string]any{
					"type": "string", "title": "Allow this command once?",
					"enum": []any{allowOnce, deny}, "default": deny,
				}},
				"required": []any{decisionField},
			},
		}},
		RequestState: state,
	}
}

// Approved is the retry of a call AskApproval answered: the rules to
// waive when the person allowed it; otherwise err is the refusal to
// answer, saying they were asked. ok is false when req is no such retry.
func (h *Human) Approved(req *mcp.CallToolRequest, spec session.Spec) (rules []string, ok bool, err error) {
	state := req.Params.RequestState
	if h == nil || state == "" {
		return nil, false, nil
	}
	h.mu.Lock()
	ap := h.approvals[state]
	delete(h.approvals, state)
	h.mu.Unlock()
	if ap == nil || ap.key != specKey(spec) {
		return nil, false, nil
	}
	er, _ := req.Params.InputResponses[inputKey].(*mcp.ElicitResult)
	switch {
	case er != nil && er.Action == "accept" && er.Content[decisionField] == allowOnce:
		return slices.Clone(ap.rules), true, nil
	case er == nil || er.Action == "cancel":
		// A headless client cancels; a failed request has no answer.
		return nil, true, &policy.Refusal{Rule: ap.rules[0], Message: "Nobody could be asked to allow this command: the client " +
			"did not put the question to a person (it failed or cancelled). Ask the user in the chat whether to run it, " +
			"and have them change the setting if they agree. " + ap.why}
	}
	return nil, true, &policy.Refusal{Rule: ap.rules[0], Message: "The user was asked to allow this command once and did not. " + ap.why}
}
