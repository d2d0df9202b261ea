package askhuman

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yieldshell/yieldshell/internal/policy"
	"github.com/yieldshell/yieldshell/internal/session"
)

// Sandbox denials (issue 40 item 4). With YIELDSHELL_ASK and a client that
// takes form elicitation, a command that ended within its call after its
// workspace-write sandbox denied writes is put to the person: what was
// denied, what allowing it would make writable (session.Widenable), the
// command, with allow once / allow for this session / deny. Allowed, the
// retry reruns the command with those paths writable, for that run or for
// every later sandboxed command; with anything else the first answer
// stands as it was.

// The choices beyond allowOnce and deny.
const allowSession = "allow for this session"

// widening is a first call's sandbox question, kept for its retry.
type widening struct {
	key     string   // specKey of the call shown: the retry must be the same
	paths   []string // what the person was asked to make writable
	roots   *policy.Roots
	first   any    // the first call's answer, returned as it was unless allowed
	process string // the first run's process ID
	at      time.Time
}

// Widened is how the retry of a call AskWiden answered goes.
type Widened struct {
	// Rerun: the person allowed the paths; spec was widened and the
	// command is to run again, its answer carrying Note.
	Rerun bool
	Note  string
	// First, unless Rerun or Refused: the first call's answer, to return
	// unchanged.
	First any
	// Refused: the retry differs from the call shown; nothing runs.
	Refused error
}

// AskWiden returns the input request that asks the person to let spec's
// command, which ran as p and was denied writes, write what it was
// denied; first is the call's answer, kept for a retry the person does
// not allow. nil when nobody may be asked (no YIELDSHELL_ASK, a client
// without form elicitation, a call that is itself a retry, nothing that
// may be offered): first stands.
func (h *Human) AskWiden(req *mcp.CallToolRequest, cfg *policy.Config, m *session.Manager, spec session.Spec, p *session.Process, first any) *mcp.CallToolResult {
	if h == nil || !cfg.Rules.Ask || !formElicitation(req) || req.Params.RequestState != "" {
		return nil
	}
	w := m.Widenable(p)
	key := specKey(spec)
	if len(w.Paths) == 0 || key == "" {
		return nil
	}
	state := h.keep(func(state string, now time.Time) {
		h.widenings[state] = &widening{key: key, paths: w.Paths, roots: spec.Roots, first: first, process: p.ID, at: now}
	})
	if state == "" {
		return nil
	}
	return formRequest(state, widenMessage(w), decisionSchema("Allow these writes?", allowOnce, allowSession, deny))
}

// Widened is the retry of a call AskWiden answered: when the person
// allowed the paths once, spec may write them (Spec.Writable); for the
// session, m lets every later sandboxed command write them. Either way
// spec runs under the roots of the call shown. ok is false when req is no
// such retry.
func (h *Human) Widened(req *mcp.CallToolRequest, m *session.Manager, spec *session.Spec) (w Widened, ok bool) {
	state := req.Params.RequestState
	if h == nil || state == "" {
		return Widened{}, false
	}
	h.mu.Lock()
	wd := h.widenings[state]
	delete(h.widenings, state)
	h.mu.Unlock()
	if wd == nil {
		return Widened{}, false
	}
	if wd.key != specKey(*spec) {
		return Widened{Refused: &policy.Refusal{Rule: "sandbox", Message: "This call differs from the one the user was asked " +
			"about; nothing was rerun and nothing was allowed. Call again exactly as you mean to run it."}}, true
	}
	er, _ := req.Params.InputResponses[inputKey].(*mcp.ElicitResult)
	if er == nil || er.Action != "accept" {
		return Widened{First: wd.first}, true
	}
	paths := strings.Join(wd.paths, ", ")
	switch er.Content[decisionField] {
	case allowOnce:
		spec.Writable = wd.paths
		w.Note = "rerun after the user allowed it to write " + paths + " for this run only"
	case allowSession:
		m.AllowWrites(wd.paths)
		w.Note = "rerun after the user allowed every sandboxed command of this session to write " + paths
	default:
		return Widened{First: wd.first}, true
	}
	spec.Roots, w.Rerun = wd.roots, true
	w.Note += "; the first run, process " + wd.process + ", was denied writing there"
	return w, true
}

// widenMessage draws what the person decides on, each value escaped on a
// line of its own (as approvalMessage does), the command last.
func widenMessage(w session.Widening) string {
	var b strings.Builder
	fmt.Fprintf(&b, "A command the agent ran has ended after this server's sandbox (%s) denied it writes.\n"+
		"Each value below is on one line; control characters are shown as escapes (\\n, \\x1b).\n\n", w.Mode)
	for _, d := range w.Denied {
		fmt.Fprintf(&b, "Denied (%s, count %d): %s\n", d.Op, d.Count, shown(d.Path))
	}
	for _, p := range w.Paths {
		what := "file"
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			what = "directory, with everything in it"
		}
		fmt.Fprintf(&b, "Would become writable (%s): %s\n", what, shown(p))
	}
	fmt.Fprintf(&b, "In directory: %s\n", shown(w.Cwd))
	fmt.Fprintf(&b, "Command: %s\n", shown(w.Command))
	b.WriteString("\nAllowing reruns the command from the start. " +
		"\"" + allowOnce + "\": for that run only. " +
		"\"" + allowSession + "\": for it and every later sandboxed command of this server. " +
		"\"" + deny + "\": the denial stands.")
	return b.String()
}
