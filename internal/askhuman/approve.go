package askhuman

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yieldshell/yieldshell/internal/policy"
	"github.com/yieldshell/yieldshell/internal/safetext"
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
	dir   *session.ShownDir // the directory shown: the start runs there
	why   string            // the first refusal, for a denial's answer
	at    time.Time
}

// specKey identifies a start for its retry: everything the call asked
// (command, cwd, env, shell, stdin, name, restarts, timeout, terminal),
// so a retry that differs in anything is no retry of what was shown. The
// client's roots are left out: the sessionless protocol asks for them
// again, and the directory is pinned (approval.dir) instead.
func specKey(s session.Spec) string {
	s.Roots, s.Waived, s.ShownCwd, s.Writable = nil, nil, nil, nil
	b, err := json.Marshal(s)
	if err != nil {
		return "" // never equal to a key made by AskApproval, which checks
	}
	return string(b)
}

// AskApproval returns the input request that asks the person to allow
// spec, which policy refused with refusal; nil when it may not be asked
// (no YIELDSHELL_ASK, a client without form elicitation, a rule a person
// may not waive): the refusal stands then.
func (h *Human) AskApproval(req *mcp.CallToolRequest, cfg *policy.Config, m *session.Manager, spec session.Spec, refusal error) *mcp.CallToolResult {
	r, ok := errors.AsType[*policy.Refusal](refusal)
	if h == nil || !cfg.Rules.Ask || !ok || !r.Askable || !formElicitation(req) || req.Params.RequestState != "" {
		return nil
	}
	asking, err := m.Askable(spec)
	if err != nil || len(asking.Refusals) == 0 {
		return nil
	}
	key := specKey(spec)
	if key == "" {
		return nil
	}
	state := h.keep(func(state string, now time.Time) {
		h.approvals[state] = &approval{key: key, rules: asking.Rules(), dir: asking.Dir, why: r.Message, at: now}
	})
	if state == "" {
		return nil
	}
	return formRequest(state, approvalMessage(asking, spec), decisionSchema("Allow this command once?", allowOnce, deny))
}

// keep runs put, h.mu held, with a new request state for a first call's
// question and the time; "" when h is closed (nothing is asked then).
func (h *Human) keep(put func(state string, now time.Time)) string {
	state := randomKey()
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return ""
	}
	now := time.Now()
	h.sweepLocked(now)
	put(state, now)
	return state
}

// formRequest is a first call's answer that asks the person message in
// a form, to be retried with state.
func formRequest(state, message string, schema map[string]any) *mcp.CallToolResult {
	return &mcp.CallToolResult{
		InputRequests: mcp.InputRequestMap{inputKey: &mcp.ElicitParams{Mode: "form", Message: message, RequestedSchema: schema}},
		RequestState:  state,
	}
}

// decisionSchema is a form of one field, the decision among choices,
// titled title; deny is the default.
func decisionSchema(title string, choices ...string) map[string]any {
	enum := make([]any, len(choices))
	for i, c := range choices {
		enum[i] = c
	}
	return map[string]any{
		"type": "object",
		"properties": map[string]any{decisionField: map[string]any{
			"type": "string", "title": title, "enum": enum, "default": deny,
		}},
		"required": []any{decisionField},
	}
}

// Approved is the retry of a call AskApproval answered. When the person
// allowed it, it sets spec's Waived (the rules shown) and ShownCwd (the
// directory shown); otherwise err is the refusal to answer, saying they
// were asked. A retry whose call differs from the one shown in anything
// is refused. ok is false when req is no such retry.
func (h *Human) Approved(req *mcp.CallToolRequest, spec *session.Spec) (ok bool, err error) {
	state := req.Params.RequestState
	if h == nil || state == "" {
		return false, nil
	}
	h.mu.Lock()
	ap := h.approvals[state]
	delete(h.approvals, state)
	h.mu.Unlock()
	if ap == nil {
		return false, nil
	}
	if ap.key != specKey(*spec) {
		return true, &policy.Refusal{Rule: ap.rules[0], Message: "This call differs from the one the user was asked about; " +
			"nothing was started. Call again exactly as you mean to run it, and the user is asked about that. " + ap.why}
	}
	er, _ := req.Params.InputResponses[inputKey].(*mcp.ElicitResult)
	switch {
	case er != nil && er.Action == "accept" && er.Content[decisionField] == allowOnce:
		spec.Waived, spec.ShownCwd = slices.Clone(ap.rules), ap.dir
		return true, nil
	case er == nil || er.Action == "cancel":
		// A headless client cancels; a failed request has no answer.
		return true, &policy.Refusal{Rule: ap.rules[0], Message: "Nobody could be asked to allow this command: the client " +
			"did not put the question to a person (it failed or cancelled). Ask the user in the chat whether to run it, " +
			"and have them change the setting if they agree. " + ap.why}
	}
	return true, &policy.Refusal{Rule: ap.rules[0], Message: "The user was asked to allow this command once and did not. " + ap.why}
}

// approvalMessage draws what the person decides on: every field on a line
// of its own, each value with its control characters and backslashes
// escaped (safetext), so no value can start a line, forge another field or
// reach the client's renderer as a control; the command, which may be
// long, comes last.
func approvalMessage(a session.Asking, spec session.Spec) string {
	var b strings.Builder
	b.WriteString("The agent wants to run a command that this server's policy refused.\n" +
		"Each value below is on one line; control characters are shown as escapes (\\n, \\x1b).\n\n")
	line := func(label, value string) {
		fmt.Fprintf(&b, "%s: %s\n", label, shown(value))
	}
	for _, r := range a.Refusals {
		line("Allows what this rule refused ("+r.Rule+")", r.Message)
	}
	line("In directory", a.Cwd)
	line("Shell", a.Shell)
	if len(a.Env) == 0 {
		b.WriteString("Environment overrides: none\n")
	}
	for _, kv := range a.Env {
		line("Environment override", kv)
	}
	line("Declared side effects", strings.Join(a.SideEffects, ", "))
	if a.Stdin != "" {
		line("Input sent first", a.Stdin)
	}
	if spec.Restart.MaxRetries > 0 {
		fmt.Fprintf(&b, "Crash restarts asked for: %d, not covered (allowing it once allows this run only; each restart is refused)\n", spec.Restart.MaxRetries)
	}
	line("Command", a.Command)
	b.WriteString("\nAllow it to run this once, exactly as shown?")
	return b.String()
}

// shown is s as one line a person can read: backslashes doubled first,
// then every control character and bidirectional override escaped.
func shown(s string) string {
	return safetext.Visible(strings.ReplaceAll(s, `\`, `\\`))
}
