package conformance

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/sys/unix"
)

// needLandlock skips a test whose sandbox this kernel cannot enforce.
func needLandlock(t *testing.T) {
	t.Helper()
	if abi, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION); errno != 0 || abi < 1 {
		t.Skip("needs Landlock: this kernel offers none")
	}
}

// person's answers to a sandbox question: an action, and the decision an
// accept carries.
type sandboxAnswer struct{ action, decision string }

// sandboxAsker is a client that takes form elicitation and answers each
// question with what answer holds, counting the questions and keeping the
// last message.
type sandboxAsker struct {
	asked   atomic.Int32
	answer  atomic.Value // sandboxAnswer
	message atomic.Value // string
}

func (a *sandboxAsker) client() *mcp.Client {
	return askClient([]string{"form"}, func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		a.asked.Add(1)
		a.message.Store(req.Params.Message)
		ans := a.answer.Load().(sandboxAnswer)
		if ans.action != "accept" {
			return &mcp.ElicitResult{Action: ans.action}, nil
		}
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": ans.decision}}, nil
	})
}

// fileLines is how many lines path holds (0 when it does not exist).
func fileLines(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	return strings.Count(string(b), "\n")
}

// processes counts the processes ps lists.
func processes(s *server) int {
	l, _ := s.call("ps", nil).m["processes"].([]any)
	return len(l)
}

// rerunNote returns the answer's note saying it was rerun, or "".
func rerunNote(r result) string {
	for _, n := range r.strs("notes") {
		if strings.Contains(n, "rerun after the user allowed") {
			return n
		}
	}
	return ""
}

// Issue 40 item 4: with YIELDSHELL_ASK and form elicitation, a command its
// workspace-write sandbox denied writes is put to the person. Allowed
// once, it is rerun with the paths writable for that run; for the session,
// every later command may write them (and health_check says so); denied,
// declined or cancelled, the first answer stands and nothing is written;
// a repository's hooks are never offered.
//
// Spec: issue 40 item 4: "With YIELDSHELL_ASK=1 and an elicitation-capable client, a denial can be allowed once (the command is rerun, or a held connect proceeds) or for the rest of the session; never without a person's yes."
func TestSandboxAskAllow(t *testing.T) {
	needLandlock(t)
	for _, v := range protocols {
		t.Run(protoName(v), func(t *testing.T) {
			root, outside := sandboxRoot(t)
			a := &sandboxAsker{}
			a.answer.Store(sandboxAnswer{"accept", "allow once"})
			s, _ := startCapturing(t, a.client(), v, "YIELDSHELL_ASK=1", "YIELDSHELL_SANDBOX=workspace-write", "YIELDSHELL_ALLOWED_CWDS="+root)
			once := filepath.Join(outside, "once.txt")
			cmd := "echo line >> " + once
			r := s.exec(cmd, map[string]any{"cwd": root}).mustStatus(t, "completed")
			msg, _ := a.message.Load().(string)
			if a.asked.Load() != 1 || !strings.Contains(msg, "Denied (open, count 1): "+once+"\n") || !strings.Contains(msg, cmd) ||
				!strings.Contains(msg, "workspace-write") || !strings.Contains(msg, "writable (directory, with everything in it): "+outside+"\n") {
				t.Errorf("the question (asked %d): %q", a.asked.Load(), msg)
			}
			if r.num("exit_code") != 0 || fileLines(t, once) != 1 || !strings.Contains(rerunNote(r), "for this run only") {
				t.Errorf("allowed once: %d lines written, answer %s", fileLines(t, once), r.text)
			}
			if _, denied := sandboxDenied(t, r); len(denied) != 0 {
				t.Errorf("the rerun was denied %q", denied)
			}

			// Once is once: a restart of the allowed run is sandboxed as before,
			// and the same command is denied and asked again.
			rs := s.call("restart", map[string]any{"process_id": r.str("process_id")})
			w := s.call("wait", map[string]any{"process_id": rs.str("process_id"), "timeout_ms": 20000})
			if _, denied := sandboxDenied(t, w); w.num("exit_code") == 0 || fileLines(t, once) != 1 || len(denied) != 1 {
				t.Errorf("a restart of the run allowed once: %d lines; restart %s; wait %s", fileLines(t, once), rs.text, w.text)
			}
			for _, ans := range []sandboxAnswer{{"accept", "deny"}, {"decline", ""}, {"cancel", ""}} {
				a.answer.Store(ans)
				before, runs := a.asked.Load(), processes(s)
				r = s.exec(cmd, map[string]any{"cwd": root}).mustStatus(t, "completed")
				if _, denied := sandboxDenied(t, r); a.asked.Load() != before+1 || r.num("exit_code") == 0 || fileLines(t, once) != 1 ||
					rerunNote(r) != "" || len(denied) != 1 || denied[0] != "open "+once || processes(s) != runs+1 {
					t.Errorf("%s: asked %d, %d lines, %d runs; answer %s", ans.action, a.asked.Load()-before, fileLines(t, once), processes(s)-runs, r.text)
				}
			}

			a.answer.Store(sandboxAnswer{"accept", "allow for this session"})
			session := filepath.Join(outside, "session.txt")
			r = s.exec("echo line >> "+session, map[string]any{"cwd": root}).mustStatus(t, "completed")
			if r.num("exit_code") != 0 || fileLines(t, session) != 1 || !strings.Contains(rerunNote(r), "every sandboxed command of this session") {
				t.Errorf("allowed for the session: %d lines, answer %s", fileLines(t, session), r.text)
			}
			before := a.asked.Load()
			r = s.exec("echo again >> "+session+" && echo more >> "+once, map[string]any{"cwd": root}).mustStatus(t, "completed")
			if r.num("exit_code") != 0 || fileLines(t, session) != 2 || fileLines(t, once) != 2 || a.asked.Load() != before {
				t.Errorf("after the session's allowance: asked %d, answer %s", a.asked.Load()-before, r.text)
			}
			health, _ := s.call("ps", nil).m["server"].(map[string]any)
			sb, _ := health["sandbox"].(map[string]any)
			if got, _ := sb["allowed_writes"].([]any); len(got) != 1 || got[0] != outside {
				t.Errorf("ps server.sandbox.allowed_writes = %v, want [%s]", sb["allowed_writes"], outside)
			}

			// A repository's hooks are never offered.
			hook := filepath.Join(root, ".git", "hooks", "pre-commit")
			before = a.asked.Load()
			r = s.exec("echo x > "+hook, map[string]any{"cwd": root}).mustStatus(t, "completed")
			if _, err := os.Stat(hook); err == nil || a.asked.Load() != before || r.num("exit_code") == 0 {
				t.Errorf("a hook: asked %d, written %v: %s", a.asked.Load()-before, err == nil, r.text)
			}
		})
	}
}

// Without form elicitation, or without YIELDSHELL_ASK, nobody is asked
// and the denial stands.
func TestSandboxAskUnasked(t *testing.T) {
	needLandlock(t)
	const secret = "supersecret-value-123"
	for name, c := range map[string]struct {
		modes []string
		env   []string
		file  string // as the command names it; "": x
	}{
		"no elicitation": {nil, []string{"YIELDSHELL_ASK=1"}, ""},
		"url only":       {[]string{"url"}, []string{"YIELDSHELL_ASK=1"}, ""},
		"no ask":         {[]string{"form"}, nil, ""},
		// A path holding a secret could not be shown to the person.
		"secret in the path": {[]string{"form"}, []string{"YIELDSHELL_ASK=1", "MY_SECRET_KEY=" + secret}, "$MY_SECRET_KEY"},
	} {
		t.Run(name, func(t *testing.T) {
			root, outside := sandboxRoot(t)
			var asked atomic.Int32
			client := askClient(c.modes, func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				asked.Add(1)
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": "allow for this session"}}, nil
			})
			env := append([]string{"YIELDSHELL_SANDBOX=workspace-write", "YIELDSHELL_ALLOWED_CWDS=" + root}, c.env...)
			s, _ := startCapturing(t, client, "", env...)
			file := filepath.Join(outside, "x")
			named := file
			if c.file != "" {
				file, named = filepath.Join(outside, secret), filepath.Join(outside, c.file)
			}
			r := s.exec("echo x > "+named, map[string]any{"cwd": root}).mustStatus(t, "completed")
			if _, denied := sandboxDenied(t, r); asked.Load() != 0 || r.num("exit_code") == 0 || fileLines(t, file) != 0 || len(denied) != 1 {
				t.Errorf("asked %d: %s", asked.Load(), r.text)
			}
			if strings.Contains(r.text, secret) {
				t.Errorf("a secret reached the answer: %s", r.text)
			}
		})
	}
}

// Issue 40 item 4, the network half: with a host list, a connection to a
// destination it does not name is held while the person is asked. Allowed
// once, that connection proceeds and nothing is denied; denied, it is
// refused and named; the next command's connection is asked about again.
//
// Spec: issue 40 item 4: "a denial can be allowed once (the command is rerun, or a held connect proceeds)".
func TestSandboxAskHeldConnect(t *testing.T) {
	needLandlock(t)
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl is not installed")
	}
	unlisted := serveOn(t, "127.0.0.2:0", "hello from unlisted")
	root, _ := sandboxRoot(t)
	a := &sandboxAsker{}
	// A server-initiated question: only a protocol with a session can take it.
	s, _ := startCapturing(t, a.client(), "2025-06-18", "YIELDSHELL_ASK=1", "YIELDSHELL_SANDBOX=workspace-write",
		"YIELDSHELL_ALLOWED_CWDS="+root, "YIELDSHELL_SANDBOX_NETWORK=127.0.0.2:9", "MCP_YIELDSHELL_BLOCKED_SIDE_EFFECTS=,")
	url := "http://127.0.0.2:" + unlisted + "/"
	fetch := map[string]any{"cwd": root, "yield_ms": 30000}
	for _, c := range []struct {
		answer sandboxAnswer
		body   bool
	}{{sandboxAnswer{"accept", "allow once"}, true}, {sandboxAnswer{"accept", "deny"}, false}, {sandboxAnswer{"accept", "allow once"}, true}} {
		a.answer.Store(c.answer)
		before := a.asked.Load()
		r := s.exec(`curl -sS --max-time 20 `+url, fetch).mustStatus(t, "completed")
		msg, _ := a.message.Load().(string)
		_, denied := sandboxDenied(t, r)
		got := strings.Contains(r.str("stdout"), "hello from unlisted")
		if a.asked.Load() != before+1 || !strings.Contains(msg, "127.0.0.2:"+unlisted) || got != c.body || len(denied) != map[bool]int{true: 0, false: 1}[c.body] {
			t.Errorf("%s: asked %d (%q), body %v, denied %q; answer %s", c.answer.decision, a.asked.Load()-before, msg, got, denied, r.text)
		}
	}
}
