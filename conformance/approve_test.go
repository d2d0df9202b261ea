//go:build unix

package conformance

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// approver is a client that answers every approval with "allow once",
// calling during (if set) while the person "decides", and keeps the last
// message it was shown.
type approver struct {
	asked   atomic.Int32
	message atomic.Value
	during  func()
}

func (a *approver) client() *mcp.Client {
	return askClient([]string{"form"}, func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		a.asked.Add(1)
		a.message.Store(req.Params.Message)
		if a.during != nil {
			a.during()
		}
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": "allow once"}}, nil
	})
}

func (a *approver) shown() string {
	m, _ := a.message.Load().(string)
	return m
}

// An approval shows everything that decides what runs, one field a line
// that no value can forge, with control characters escaped.
//
// Spec: issue 38 item 2: "An approval shows everything that decides what runs — command, cwd as resolved, shell, every environment override, the rules it waives — drawn safely (control characters shown, not sent; one field per line that the command text cannot forge)".
func TestApprovalShowsEverything(t *testing.T) {
	dir := t.TempDir()
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range protocols {
		t.Run(protoName(v), func(t *testing.T) {
			a := &approver{}
			s, _ := startCapturing(t, a.client(), v, "YIELDSHELL_ASK=1", "YIELDSHELL_DENY_COMMAND_REGEX=forbidden")
			cmd := "echo forbidden\nIn: /\x1b[31m\r\u202e"
			r := s.exec(cmd, map[string]any{"cwd": dir, "env": map[string]string{"GREETING": "hi\nShell: /bin/evil"}})
			if a.asked.Load() != 1 || r.str("status") != "completed" {
				t.Fatalf("asked %d times: %s", a.asked.Load(), r.text)
			}
			msg := a.shown()
			if strings.ContainsAny(msg, "\x1b\r\u202e") {
				t.Errorf("the form carries raw control characters: %q", msg)
			}
			for _, want := range []string{
				"In directory: " + real + "\n",
				"Shell: /",
				`Environment override: GREETING=hi\nShell: /bin/evil` + "\n",
				"(deny_command_regex)",
				`Command: echo forbidden\nIn: /\x1b[31m\r\u202e`,
			} {
				if !strings.Contains(msg, want) {
					t.Errorf("the form lacks %q:\n%s", want, msg)
				}
			}
			for _, line := range strings.Split(msg, "\n") {
				if strings.HasPrefix(line, "In:") || strings.HasPrefix(line, "Shell: /bin/evil") {
					t.Errorf("a value forged a line of the form: %q\n%s", line, msg)
				}
			}
		})
	}
}

// A person allowing a command the deny regex refused does not allow what
// the regex cannot see: BASH_ENV, PATH, LD_PRELOAD stay refused, and
// nobody is asked about a call that would be refused anyway.
//
// Spec: issue 38 item 2: "the environment checks never waived with the regex".
func TestApprovalKeepsEnvChecks(t *testing.T) {
	a := &approver{}
	s, _ := startCapturing(t, a.client(), "", "YIELDSHELL_ASK=1", "YIELDSHELL_DENY_COMMAND_REGEX=forbidden")
	for _, name := range []string{"BASH_ENV", "PATH", "LD_PRELOAD"} {
		r := s.exec("echo forbidden", map[string]any{"env": map[string]string{name: "/tmp/x"}})
		if !r.isError || r.str("status") != "failed_to_start" {
			t.Errorf("%s with an approval: %s", name, r.text)
		}
	}
	if n := a.asked.Load(); n != 0 {
		t.Errorf("the person was asked %d times about calls policy refuses anyway", n)
	}
}

// "Allow once" is once: restart asks nobody and is refused, leaving the
// run that was allowed; crash restarts are refused too.
//
// Spec: issue 38 item 2: "\"Once\" means once: restarts and retries ask again or are refused."
func TestApprovalIsOnce(t *testing.T) {
	a := &approver{}
	s, stderr := startCapturing(t, a.client(), "", "YIELDSHELL_ASK=1", "YIELDSHELL_DENY_COMMAND_REGEX=forbidden")
	r := s.exec("echo forbidden; exec sleep 60", map[string]any{"yield_ms": 0})
	id := r.str("process_id")
	if id == "" || a.asked.Load() != 1 {
		t.Fatalf("asked %d: %s", a.asked.Load(), r.text)
	}
	t.Cleanup(func() { s.stopQuietly(id) })
	if re := s.call("restart", map[string]any{"process_id": id}); !re.isError || re.str("rule") != "deny_command_regex" {
		t.Errorf("restart of a command allowed once: %s", re.text)
	}
	s.call("read", map[string]any{"process_id": id}).mustStatus(t, "running")

	c := s.exec("echo forbidden; exit 3", map[string]any{"name": "crashy", "max_retries": 3})
	if c.str("status") != "completed" || a.asked.Load() != 2 {
		t.Fatalf("asked %d: %s", a.asked.Load(), c.text)
	}
	eventually(t, 10*time.Second, "the crash restart refused", func() bool {
		return strings.Contains(stderr.String(), "crash restart failed")
	})
	runs := 0
	for _, p := range s.call("ps", nil).m["processes"].([]any) {
		if strings.Contains(p.(map[string]any)["command"].(string), "exit 3") {
			runs++
		}
	}
	if runs != 1 || a.asked.Load() != 2 {
		t.Errorf("%d runs of a command allowed once (asked %d)", runs, a.asked.Load())
	}
}

// The directory shown is the one used: a link swapped while the person
// decides refuses the start instead of moving it.
//
// Spec: issue 38 item 2: "runs exactly what was shown: the cwd pinned (the directory opened when asked is the one used)".
func TestApprovalPinsCwd(t *testing.T) {
	base := t.TempDir()
	work, victim := filepath.Join(base, "work"), filepath.Join(base, "victim")
	for _, d := range []string{work, victim} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(base, "link")
	if err := os.Symlink(work, link); err != nil {
		t.Fatal(err)
	}
	a := &approver{during: func() {
		_ = os.Remove(link)
		_ = os.Symlink(victim, link)
	}}
	s, _ := startCapturing(t, a.client(), "", "YIELDSHELL_ASK=1", "YIELDSHELL_DENY_COMMAND_REGEX=forbidden")
	r := s.exec("touch forbidden", map[string]any{"cwd": link})
	if a.asked.Load() != 1 || !r.isError || r.str("rule") != "cwd" {
		t.Errorf("asked %d: %s", a.asked.Load(), r.text)
	}
	if _, err := os.Stat(filepath.Join(victim, "forbidden")); err == nil {
		t.Error("the command ran in the directory swapped in while the person decided")
	}
}
