//go:build unix

package conformance

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/yieldshell/yieldshell/internal/cdptest"
)

// A person in the loop (issue 33): ask_human's pages, played by a plain
// HTTP client or by headless Chromium, and YIELDSHELL_ASK's approvals.

// askSecret is what the person types: spaces, quotes and non-ASCII
// included, long enough to be unmistakable in any text.
const askSecret = `open sesame "42" ✓ batterie-agrafe`

// passwordProgram asks for a password without echo, prints a hash of what
// it read, then (as a careless program would) the password itself, and
// asks one more question so it stays up for a look at its screen.
const passwordProgram = `read -rs -p "Password: " pw; echo; printf '%s' "$pw" | sha256sum; echo "you typed: $pw"; read -r -p "again? " x; echo "bye $x"`

func sha(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// askClient is a client that declares elicitation (modes: "url", "form";
// none: no elicitation at all) and answers it with handle.
func askClient(modes []string, handle func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error)) *mcp.Client {
	opts := &mcp.ClientOptions{}
	if len(modes) > 0 {
		caps := &mcp.ElicitationCapabilities{}
		for _, m := range modes {
			switch m {
			case "url":
				caps.URL = &mcp.URLElicitationCapabilities{}
			case "form":
				caps.Form = &mcp.FormElicitationCapabilities{}
			}
		}
		opts.Capabilities = &mcp.ClientCapabilities{Elicitation: caps}
		opts.ElicitationHandler = handle
	}
	return mcp.NewClient(&mcp.Implementation{Name: "conformance", Version: "0"}, opts)
}

// startCapturing is connectClient with the server's stderr also kept, to
// look for a secret in it.
func startCapturing(t *testing.T, client *mcp.Client, version string, env ...string) (*server, *syncBuffer) {
	t.Helper()
	statSources()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	stderr := &syncBuffer{}
	cmd := exec.Command(binPath)
	cmd.Env = append(os.Environ(), helperEnv+"="+self, "GORACE=atexit_sleep_ms=0", "YIELDSHELL_LOG_LEVEL=DEBUG")
	cmd.Env = append(cmd.Env, env...)
	cmd.Stderr = io.MultiWriter(stderr, testWriter{t})
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 5 * time.Second},
		&mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connecting to yieldshell: %v", err)
	}
	t.Cleanup(func() {
		if err := cs.Close(); err != nil {
			t.Logf("closing session: %v", err)
		}
	})
	return &server{t: t, cs: cs, cmd: cmd}, stderr
}

// person plays the browser with plain HTTP, as a page's own scripts and
// forms would send it: same-origin POSTs, no redirects followed.
type person struct {
	t *testing.T
	c *http.Client
}

func newPerson(t *testing.T) *person {
	return &person{t: t, c: &http.Client{
		Timeout:       20 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

func (p *person) do(method, u, ctype, body string) (int, string) {
	p.t.Helper()
	req, err := http.NewRequestWithContext(p.t.Context(), method, u, strings.NewReader(body))
	if err != nil {
		p.t.Fatal(err)
	}
	if method == http.MethodPost {
		pu, _ := url.Parse(u)
		req.Header.Set("Origin", pu.Scheme+"://"+pu.Host)
		req.Header.Set("Content-Type", ctype)
	}
	resp, err := p.c.Do(req)
	if err != nil {
		p.t.Fatalf("%s %s: %v", method, "the page", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// open views the page: from now on the person holds the terminal.
func (p *person) open(u string) string {
	p.t.Helper()
	code, body := p.do(http.MethodGet, u, "", "")
	if code != http.StatusOK {
		p.t.Fatalf("opening the page: %d %s", code, body)
	}
	return body
}

func (p *person) submit(u, secret string) {
	p.t.Helper()
	if code, body := p.do(http.MethodPost, u, "application/x-www-form-urlencoded",
		url.Values{"secret": {secret}, "action": {"submit"}}.Encode()); code != http.StatusSeeOther {
		p.t.Fatalf("submitting the secret: %d %s", code, body)
	}
}

func (p *person) keys(u, keys string) {
	p.t.Helper()
	if code, body := p.do(http.MethodPost, u+"/keys", "text/plain", keys); code != http.StatusNoContent {
		p.t.Fatalf("typing keys: %d %s", code, body)
	}
}

func (p *person) press(u, action string) {
	p.t.Helper()
	if code, body := p.do(http.MethodPost, u, "application/x-www-form-urlencoded", "action="+action); code != http.StatusSeeOther {
		p.t.Fatalf("pressing %s: %d %s", action, code, body)
	}
}

// noSecret fails if the secret is in any of texts or in any file under
// dir.
func noSecret(t *testing.T, dir string, texts map[string]string) {
	t.Helper()
	for what, s := range texts {
		if strings.Contains(s, askSecret) || strings.Contains(s, "batterie-agrafe") {
			t.Errorf("the secret leaked into %s:\n%s", what, s)
		}
	}
	if dir == "" {
		return
	}
	files := 0
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		files++
		b, err := os.ReadFile(path)
		if err != nil {
			t.Error(err)
		} else if strings.Contains(string(b), "batterie-agrafe") {
			t.Errorf("the secret leaked into %s", path)
		}
		return nil
	})
	if files == 0 {
		t.Errorf("no disk log in %s", dir)
	}
}

// secretFlow runs the fallback secret flow: the agent asks, gets a link,
// the person (type) types the secret on the page, the agent's wait
// reports human_done once with the reply; the secret reaches the program
// and nothing else.
func secretFlow(t *testing.T, typeSecret func(t *testing.T, u string)) {
	need(t, "bash", "sha256sum")
	for _, v := range protocols {
		t.Run(protoName(v), func(t *testing.T) {
			logs := t.TempDir()
			s, stderr := startCapturing(t, askClient(nil, nil), v, "YIELDSHELL_LOG_DIR="+logs)
			r := waiting(t, s.exec(passwordProgram, map[string]any{"shell": "bash", "yield_ms": longYield}), "password")
			id := r.str("process_id")
			a := s.call("ask_human", map[string]any{"process_id": id, "message": "The test asks for your password.", "secret": true})
			u := a.str("url")
			if a.isError || !strings.HasPrefix(u, "http://127.0.0.1:") || !strings.Contains(a.str("message"), "wait") {
				t.Fatalf("ask_human without elicitation: %s", a.text)
			}
			typeSecret(t, u)
			w := s.call("wait", map[string]any{"process_id": id, "timeout_ms": 20000})
			if w.str("yield_reason") != "human_done" || !strings.Contains(w.str("stdout"), sha(askSecret)) ||
				!strings.Contains(w.str("stdout"), "you typed: [REDACTED:ask_human]") || w.str("input_kind") != "line" {
				t.Errorf("wait after the person typed: %s", w.text)
			}
			again := s.call("wait", map[string]any{"process_id": id, "timeout_ms": 5000})
			if again.str("yield_reason") != "input_wait" {
				t.Errorf("a second wait reported the person again: %s", again.text)
			}
			scr := s.call("read", map[string]any{"process_id": id, "view": "screen"})
			all := s.call("read", map[string]any{"process_id": id, "since_seq": 0})
			end := s.reply(id, "no")
			if !strings.Contains(end.str("stdout"), "bye no") {
				t.Errorf("the program did not go on: %s", end.text)
			}
			noSecret(t, logs, map[string]string{"exec": r.text, "ask_human": a.text, "wait": w.text, "second wait": again.text,
				"the screen": scr.text, "read": all.text, "write": end.text, "the server's stderr": stderr.String()})
		})
	}
}

// Spec: issue 33 item 1: "secret: true ... what the person submits is typed into the terminal only if that program still waits for a password ... The secret never appears in any answer, log, screen, disk log, metric or server log, and is redacted from the process's output if the program echoes it."
func TestAskHumanSecret(t *testing.T) {
	secretFlow(t, func(t *testing.T, u string) {
		p := newPerson(t)
		if page := p.open(u); !strings.Contains(page, "Password:") || !strings.Contains(page, "The test asks for your password.") {
			t.Errorf("the page does not show the prompt and the message:\n%s", page)
		}
		p.submit(u, askSecret)
	})
}

// The same in a real browser.
//
// Spec: issue 33 item 3: "tested end to end in headless Chromium ... the agent asks, the browser opens the URL, types the secret ... submits; the program receives exactly that; nothing of it reaches any answer or log."
func TestAskHumanSecretChromium(t *testing.T) {
	secretFlow(t, func(t *testing.T, u string) {
		ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
		defer cancel()
		c := cdptest.Start(t, ctx)
		if _, err := c.Call(ctx, "Page.navigate", map[string]any{"url": u}); err != nil {
			t.Fatal(err)
		}
		must(t, c.WaitFor(ctx, `document.readyState==="complete" && document.getElementById("secret")`))
		_, err := c.Eval(ctx, `document.getElementById("secret").focus()`)
		must(t, err)
		_, err = c.Call(ctx, "Input.insertText", map[string]any{"text": askSecret})
		must(t, err)
		must(t, c.Key(ctx, "Enter", "Enter", 13, "\r"))
		must(t, c.WaitFor(ctx, `location.pathname.endsWith("/result") && document.body.innerText.includes("Sent")`))
	})
}

// Spec: issue 33 item 1: "secret: true — the program must be waiting for a password (the server's own evidence, as for wait_for_password)."
func TestAskHumanSecretNeedsPasswordPrompt(t *testing.T) {
	s := start(t, "")
	line := waiting(t, s.exec("cat", map[string]any{"yield_ms": longYield}), "line")
	a := s.call("ask_human", map[string]any{"process_id": line.str("process_id"), "message": "x", "secret": true})
	if !a.isError || a.has("url") || !strings.Contains(a.str("error"), "not a password") || a.str("input_kind") != "line" {
		t.Errorf("a secret ask at a line prompt: %s", a.text)
	}
}

// Spec: issue 33 item 1: "secret: false — a handover ... A person holds the terminal from the moment the page ... is opened until "Done"; the agent's write to that process is refused meanwhile, with an error that says so ... a wait on the process that is in progress when the person finishes, or the first one after, returns yield_reason: "human_done" ... once."
func TestAskHumanHandover(t *testing.T) {
	need(t, "bash")
	forEachProtocol(t, nil, func(t *testing.T, s *server) {
		r := waiting(t, s.exec(`read -r -p "name? " n; echo "hello $n"; read -r -p "more? " m; echo "done $m"`,
			map[string]any{"shell": "bash", "yield_ms": longYield}), "line")
		id := r.str("process_id")
		a := s.call("ask_human", map[string]any{"process_id": id, "message": "Please tell it your name."})
		u := a.str("url")
		if a.isError || u == "" {
			t.Fatalf("ask_human: %s", a.text)
		}
		p := newPerson(t)
		if page := p.open(u); !strings.Contains(page, "name?") {
			t.Errorf("the handover page does not show the screen:\n%s", page)
		}
		var refused result
		eventually(t, 10*time.Second, "the agent's write to be refused while the person holds the terminal", func() bool {
			refused = s.call("write", map[string]any{"process_id": id, "input": ""})
			return refused.isError
		})
		if !strings.Contains(refused.str("error"), "person holds this terminal") {
			t.Errorf("the refusal does not say why: %s", refused.text)
		}
		// A wait in progress when the person finishes reports it.
		waited := make(chan result, 1)
		go func() { waited <- s.call("wait", map[string]any{"process_id": id, "timeout_ms": 30000}) }()
		p.keys(u, "Ada\r")
		s.readUntil(id, "hello Ada")
		p.press(u, "done")
		w := <-waited
		if w.str("yield_reason") != "human_done" || w.str("prompt") != "more? " {
			t.Errorf("the wait in progress: %s", w.text)
		}
		if again := s.call("wait", map[string]any{"process_id": id, "timeout_ms": 5000}); again.str("yield_reason") != "input_wait" {
			t.Errorf("a second wait reported the person again: %s", again.text)
		}
		if end := s.reply(id, "tea"); end.isError || !strings.Contains(end.str("stdout"), "done tea") {
			t.Errorf("the agent's write after Done: %s", end.text)
		}
	})
}

// A wait that starts after the person declined reports it, once.
func TestAskHumanDeclinedThenWait(t *testing.T) {
	s := start(t, "")
	id := waiting(t, s.exec("cat", map[string]any{"yield_ms": longYield}), "line").str("process_id")
	u := s.call("ask_human", map[string]any{"process_id": id, "message": "m"}).str("url")
	p := newPerson(t)
	p.open(u)
	p.press(u, "decline")
	if w := s.call("wait", map[string]any{"process_id": id, "timeout_ms": 20000}); w.str("yield_reason") != "human_declined" {
		t.Errorf("wait after a decline: %s", w.text)
	}
	if w := s.call("wait", map[string]any{"process_id": id, "timeout_ms": 3000}); w.str("yield_reason") != "input_wait" {
		t.Errorf("the second wait: %s", w.text)
	}
}

// With URL elicitation the call shows the page through the client and
// answers when the person is done, with the program's reply; a client
// that declines gets human_declined.
//
// Spec: issue 33 item 1: "Where the client declared URL-mode elicitation, the server sends the URL as an elicitation/create (mode url) and the call answers when the person has finished (or declined, or timeout_ms passed), with the program's reply as write would give it."
func TestAskHumanURLElicitation(t *testing.T) {
	need(t, "bash", "sha256sum")
	for _, v := range protocols {
		t.Run(protoName(v), func(t *testing.T) {
			var asked atomic.Int32
			decline := atomic.Bool{}
			p := newPerson(t)
			client := askClient([]string{"url"}, func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				asked.Add(1)
				if req.Params.Mode != "url" || req.Params.URL == "" || req.Params.ElicitationID == "" ||
					!strings.Contains(req.Params.Message, "for your password") {
					return nil, fmt.Errorf("unexpected elicitation %+v", req.Params)
				}
				if decline.Load() {
					return &mcp.ElicitResult{Action: "decline"}, nil
				}
				p.open(req.Params.URL)
				p.submit(req.Params.URL, askSecret)
				return &mcp.ElicitResult{Action: "accept"}, nil
			})
			logs := t.TempDir()
			s, stderr := startCapturing(t, client, v, "YIELDSHELL_LOG_DIR="+logs)
			id := waiting(t, s.exec(passwordProgram, map[string]any{"shell": "bash", "yield_ms": longYield}), "password").str("process_id")
			a := s.call("ask_human", map[string]any{"process_id": id, "message": "The test asks for your password.", "secret": true})
			if a.isError || a.str("yield_reason") != "human_done" || a.has("url") || !strings.Contains(a.str("stdout"), sha(askSecret)) ||
				a.str("input_kind") != "line" || asked.Load() != 1 {
				t.Errorf("ask_human with URL elicitation (asked %d times): %s", asked.Load(), a.text)
			}
			if w := s.call("wait", map[string]any{"process_id": id, "timeout_ms": 3000}); w.str("yield_reason") != "input_wait" {
				t.Errorf("a wait after the answered ask: %s", w.text)
			}
			noSecret(t, logs, map[string]string{"ask_human": a.text, "the server's stderr": stderr.String()})

			decline.Store(true)
			id2 := waiting(t, s.exec("cat", map[string]any{"yield_ms": longYield}), "line").str("process_id")
			d := s.call("ask_human", map[string]any{"process_id": id2, "message": "The test asks for your password? no."})
			if d.isError || d.str("yield_reason") != "human_declined" {
				t.Errorf("a declined URL elicitation: %s", d.text)
			}
			if w := s.call("write", map[string]any{"process_id": id2, "input": "still mine", "newline": true, "yield_ms": 5000}); w.isError {
				t.Errorf("the agent's write after the decline: %s", w.text)
			}
		})
	}
}

// In --http mode the page is served on the server's own listener under
// /human/, with no bearer token.
//
// Spec: issue 33 item 1: "in --http mode it serves the page on its own listener, under a path that needs no bearer token but a one-time, unguessable, expiring token of its own"
func TestAskHumanOverHTTP(t *testing.T) {
	h := startHTTP(t, t.Context())
	cs, err := h.connect(httpToken)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	s := &server{t: t, cs: cs}
	id := waiting(t, s.exec("cat", map[string]any{"yield_ms": longYield}), "line").str("process_id")
	u := s.call("ask_human", map[string]any{"process_id": id, "message": "m"}).str("url")
	base := strings.TrimSuffix(h.url, "/mcp") + "/human/"
	if !strings.HasPrefix(u, base) {
		t.Fatalf("page %q is not under %s", u, base)
	}
	p := newPerson(t)
	p.open(u)
	p.keys(u, "over http\r")
	s.readUntil(id, "over http")
	p.press(u, "done")
	if w := s.call("wait", map[string]any{"process_id": id, "timeout_ms": 20000}); w.str("yield_reason") != "human_done" {
		t.Errorf("wait: %s", w.text)
	}
}

// Approvals: with YIELDSHELL_ASK=1 and form elicitation a refusal for an
// askable rule is put to the user; allowed, it runs; denied, it is
// refused; without the setting, or for the allow list, nobody is asked.
//
// Spec: issue 33 item 2: "With YIELDSHELL_ASK=1 and a client that declared form elicitation, a command refused by policy ... asks the human once through a form elicitation that names what would run, where, and which rule refused it, with allow once / deny; allowed runs as if the rule were absent for that call and is logged as approved by the user. Without elicitation, or without the setting, today's refusal stands."
func TestAskApproval(t *testing.T) {
	for _, v := range protocols {
		t.Run(protoName(v), func(t *testing.T) {
			var asked atomic.Int32
			var answer atomic.Value
			answer.Store("allow once")
			var message atomic.Value
			client := askClient([]string{"form"}, func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				asked.Add(1)
				message.Store(req.Params.Message)
				if req.Params.Mode != "form" {
					return nil, fmt.Errorf("mode %q", req.Params.Mode)
				}
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": answer.Load()}}, nil
			})
			s, stderr := startCapturing(t, client, v, "YIELDSHELL_ASK=1", "YIELDSHELL_DENY_COMMAND_REGEX=forbidden",
				"YIELDSHELL_ALLOW_COMMAND_REGEX=^echo")
			r := s.exec("echo forbidden fruit", nil)
			msg, _ := message.Load().(string)
			if r.isError || r.str("status") != "completed" || !strings.Contains(r.str("stdout"), "forbidden fruit") || asked.Load() != 1 ||
				!strings.Contains(msg, "echo forbidden fruit") || !strings.Contains(msg, "deny_command_regex") {
				t.Errorf("an allowed command (asked %d times, %q): %s", asked.Load(), msg, r.text)
			}
			if !strings.Contains(r.text, "the user allowed this command once") {
				t.Errorf("the answer does not say the user allowed it: %s", r.text)
			}
			eventually(t, 5*time.Second, "the approval in the server's log", func() bool {
				return strings.Contains(stderr.String(), "starting a command the user approved")
			})

			answer.Store("deny")
			d := s.exec("echo forbidden again", nil)
			if !d.isError || d.str("status") != "failed_to_start" || d.str("rule") != "deny_command_regex" ||
				!strings.Contains(d.str("error"), "asked") || asked.Load() != 2 {
				t.Errorf("a denied command: %s", d.text)
			}
			// Denied and outside the allow list: allowing the first would not
			// make it run, so the user is not asked.
			if l := s.exec("ls forbidden", nil); !l.isError || l.str("status") != "failed_to_start" || asked.Load() != 2 {
				t.Errorf("the allow list was put to the user (asked %d): %s", asked.Load(), l.text)
			}
		})
	}
}

// Without YIELDSHELL_ASK a client with elicitation is never asked.
func TestAskApprovalOff(t *testing.T) {
	var asked atomic.Int32
	client := askClient([]string{"form", "url"}, func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		asked.Add(1)
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": "allow once"}}, nil
	})
	s, _ := startCapturing(t, client, "", "YIELDSHELL_DENY_COMMAND_REGEX=forbidden")
	if r := s.exec("echo forbidden", nil); !r.isError || r.str("rule") != "deny_command_regex" || asked.Load() != 0 {
		t.Errorf("without YIELDSHELL_ASK (asked %d): %s", asked.Load(), r.text)
	}
}

// Through the persistent server the page is the server's (on its own
// loopback listener), the bridge only relays the calls, URL elicitation
// included.
//
// Spec: issue 33 item 1: "Works through the persistent server (--persist) too: the page is the server's, the bridge only relays the call."
func TestAskHumanPersist(t *testing.T) {
	need(t, "bash", "sha256sum")
	env := persistRuntime(t)
	fallback := start(t, "2025-06-18", env...)
	id := waiting(t, fallback.exec("cat", map[string]any{"yield_ms": longYield}), "line").str("process_id")
	u := fallback.call("ask_human", map[string]any{"process_id": id, "message": "m"}).str("url")
	p := newPerson(t)
	p.open(u)
	p.keys(u, "through the bridge\r")
	fallback.readUntil(id, "through the bridge")
	p.press(u, "done")
	if w := fallback.call("wait", map[string]any{"process_id": id, "timeout_ms": 20000}); w.str("yield_reason") != "human_done" {
		t.Errorf("wait through the bridge: %s", w.text)
	}

	client := askClient([]string{"url"}, func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		p.open(req.Params.URL)
		p.submit(req.Params.URL, askSecret)
		return &mcp.ElicitResult{Action: "accept"}, nil
	})
	s, err := connectClient(t, client, "", env...)
	if err != nil {
		t.Fatal(err)
	}
	id = waiting(t, s.exec(passwordProgram, map[string]any{"shell": "bash", "yield_ms": longYield}), "password").str("process_id")
	a := s.call("ask_human", map[string]any{"process_id": id, "message": "m", "secret": true})
	if a.str("yield_reason") != "human_done" || !strings.Contains(a.str("stdout"), sha(askSecret)) {
		t.Errorf("URL elicitation through the bridge: %s", a.text)
	}
	serverLog, _ := os.ReadFile(filepath.Join(strings.TrimPrefix(env[0], "YIELDSHELL_RUNTIME_DIR="), "yieldshell", "server.log"))
	if len(serverLog) == 0 {
		t.Error("the persistent server's log is empty or missing")
	}
	noSecret(t, "", map[string]string{"ask_human": a.text, "the persistent server's log": string(serverLog)})
}

// shell-yeah's ask_human takes a label; send_input is refused while the
// person holds the terminal.
//
// Spec: issue 33 item 1: "A new tool ask_human (in both toolsets; label in place of process_id in the shell-yeah one)"
func TestAskHumanShellYeah(t *testing.T) {
	s := start(t, "", "YIELDSHELL_TOOLSET=shell-yeah")
	if r := s.call("start_shell", map[string]any{"command": "cat", "label": "kitty", "workingDirectory": t.TempDir()}); r.isError {
		t.Fatalf("start_shell: %s", r.text)
	}
	t.Cleanup(func() { s.stopQuietly("kitty") })
	a := s.call("ask_human", map[string]any{"label": "kitty", "message": "m"})
	u := a.str("url")
	if a.isError || u == "" || a.str("label") != "kitty" {
		t.Fatalf("ask_human: %s", a.text)
	}
	p := newPerson(t)
	p.open(u)
	eventually(t, 10*time.Second, "send_input to be refused while the person holds the terminal", func() bool {
		r := s.call("send_input", map[string]any{"label": "kitty", "input": "agent"})
		return r.isError && strings.Contains(r.str("error"), "person holds this terminal")
	})
	p.keys(u, "from the person\r")
	p.press(u, "done")
	eventually(t, 10*time.Second, "the person's line in the log", func() bool {
		return strings.Contains(s.call("get_all_loglines", map[string]any{"label": "kitty"}).text, "from the person")
	})
	if r := s.call("send_input", map[string]any{"label": "kitty", "input": "agent again"}); r.isError {
		t.Errorf("send_input after Done: %s", r.text)
	}
}

// Elicitation outcomes told apart (issue 41 item 2): a client that cancels
// (as claude -p does: nobody to ask) or whose elicitation fails did not
// reach a person, so ask_human falls back to the link and says so, as a
// tool result, never a JSON-RPC error; the page still works and a wait
// reports the person's answer. An approval put to such a client is
// refused saying nobody could be asked, not that the user refused.
func TestAskHumanUnasked(t *testing.T) {
	for _, tc := range []struct {
		name   string
		answer func() (*mcp.ElicitResult, error)
		why    string
	}{
		{"cancel", func() (*mcp.ElicitResult, error) { return &mcp.ElicitResult{Action: "cancel"}, nil }, "with cancel"},
		{"error", func() (*mcp.ElicitResult, error) { return nil, fmt.Errorf("no terminal to ask on") }, "request failed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var asked atomic.Int32
			client := askClient([]string{"url", "form"}, func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				asked.Add(1)
				return tc.answer()
			})
			s := startWith(t, client, "2025-06-18", "YIELDSHELL_ASK=1", "YIELDSHELL_DENY_COMMAND_REGEX=forbidden")
			id := waiting(t, s.exec("cat", map[string]any{"yield_ms": longYield}), "line").str("process_id")
			a := s.call("ask_human", map[string]any{"process_id": id, "message": "Type something."})
			u := a.str("url")
			if a.isError || u == "" || a.has("yield_reason") || !strings.Contains(a.str("message"), "did not show the page") ||
				!strings.Contains(a.str("message"), tc.why) || asked.Load() != 1 {
				t.Fatalf("ask_human (asked %d): %s", asked.Load(), a.text)
			}
			p := newPerson(t)
			p.open(u)
			p.keys(u, "typed by a person\r")
			p.press(u, "done")
			if w := s.call("wait", map[string]any{"process_id": id, "timeout_ms": 20000}); w.str("yield_reason") != "human_done" {
				t.Errorf("wait after the fallback link: %s", w.text)
			}
			r := s.exec("echo forbidden", nil)
			if !r.isError || !strings.Contains(r.str("error"), "Nobody could be asked") || strings.Contains(r.str("error"), "did not.") {
				t.Errorf("an approval nobody could answer: %s", r.text)
			}
		})
	}
}

// A handover that ends because the program ended while the person held
// the terminal is done, not withdrawn: ask_human (URL elicitation) and a
// wait (the link) both say human_done, and the page says so in green.
func TestAskHumanHandoverProgramEnds(t *testing.T) {
	need(t, "bash")
	const program = `read -r -p "name? " n; echo "bye $n"`
	t.Run("elicitation", func(t *testing.T) {
		p := newPerson(t)
		client := askClient([]string{"url"}, func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			p.open(req.Params.URL)
			p.keys(req.Params.URL, "Ada\r") // the program ends; the person never presses Done
			return &mcp.ElicitResult{Action: "accept"}, nil
		})
		s := startWith(t, client, "2025-06-18")
		id := waiting(t, s.exec(program, map[string]any{"shell": "bash", "yield_ms": longYield}), "line").str("process_id")
		a := s.call("ask_human", map[string]any{"process_id": id, "message": "Your name, please."})
		if a.isError || a.str("yield_reason") != "human_done" || !strings.Contains(a.str("stdout"), "bye Ada") {
			t.Errorf("ask_human: %s", a.text)
		}
	})
	t.Run("link", func(t *testing.T) {
		s := start(t, "")
		id := waiting(t, s.exec(program, map[string]any{"shell": "bash", "yield_ms": longYield}), "line").str("process_id")
		u := s.call("ask_human", map[string]any{"process_id": id, "message": "Your name, please."}).str("url")
		p := newPerson(t)
		p.open(u)
		p.keys(u, "Ada\r")
		w := s.call("wait", map[string]any{"process_id": id, "timeout_ms": 20000})
		if w.str("yield_reason") != "human_done" || w.str("status") != "completed" {
			t.Errorf("wait: %s", w.text)
		}
		if code, body := p.do(http.MethodGet, u, "", ""); code != http.StatusGone || !strings.Contains(body, `class="ok">Done`) {
			t.Errorf("the page after the program ended: %d\n%s", code, body)
		}
	})
}

// TestAskHumanHandoverChromium: the handover page is the program's
// terminal in a real browser (issue 41 item 10): its colours show, the
// terminal takes the browser window's size (the program sees it: stty),
// what the person types reaches the program, and the program ending ends
// the handover as done, in green. It runs at a phone's size; screenshots
// go to $YIELDSHELL_SCREENSHOTS when set.
func TestAskHumanHandoverChromium(t *testing.T) {
	need(t, "bash", "stty")
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	c := cdptest.Start(t, ctx)
	s := start(t, "")
	program := `printf '\033[1;32mgreen light\033[0m\n'; read -r -p "name? " n; echo "hello $n"; stty size; read -r -p "bye? " x`
	id := waiting(t, s.exec(program, map[string]any{"shell": "bash", "yield_ms": longYield}), "line").str("process_id")
	u := s.call("ask_human", map[string]any{"process_id": id, "message": "Type your name."}).str("url")
	if u == "" {
		t.Fatal("no page")
	}
	if _, err := c.Call(ctx, "Emulation.setDeviceMetricsOverride", map[string]any{"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": true}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Call(ctx, "Page.navigate", map[string]any{"url": u}); err != nil {
		t.Fatal(err)
	}
	rows := `document.querySelector(".xterm-rows").textContent`
	must(t, c.WaitFor(ctx, rows+`.includes("name?") && document.getElementById("status").textContent.startsWith("Live")`))
	must(t, c.WaitFor(ctx, `[...document.querySelectorAll(".xterm-rows span.xterm-bold")].some(e => e.textContent.includes("green light"))`))
	size, err := c.Text(ctx, `(function(){var r=document.querySelector(".xterm-rows").children.length;
		var m=document.querySelector(".xterm-rows>div");return r+" "+m.parentElement.parentElement.clientWidth})()`)
	must(t, err)
	_, err = c.Eval(ctx, `document.querySelector(".xterm-helper-textarea").focus()`)
	must(t, err)
	_, err = c.Call(ctx, "Input.insertText", map[string]any{"text": "Ada"})
	must(t, err)
	must(t, c.Key(ctx, "Enter", "Enter", 13, "\r"))
	out := s.readUntil(id, "bye?")
	stty := regexp.MustCompile(`(?m)^(\d+) (\d+)\s*$`).FindStringSubmatch(out)
	if !strings.Contains(out, "hello Ada") || stty == nil {
		t.Fatalf("the program's output after the person typed: %q", out)
	}
	cols, _ := strconv.Atoi(stty[2])
	if cols < 20 || cols > 60 {
		t.Errorf("the program's terminal is %s columns on a phone (the page measured %s)", stty[2], size)
	}
	if d := os.Getenv("YIELDSHELL_SCREENSHOTS"); d != "" {
		png, err := c.Screenshot(ctx)
		must(t, err)
		must(t, os.WriteFile(filepath.Join(d, "handover-real-phone.png"), png, 0o644))
	}
	_, err = c.Eval(ctx, `document.querySelector(".xterm-helper-textarea").focus()`)
	must(t, err)
	must(t, c.Key(ctx, "Enter", "Enter", 13, "\r")) // the program ends
	if w := s.call("wait", map[string]any{"process_id": id, "timeout_ms": 20000}); w.str("yield_reason") != "human_done" {
		t.Errorf("wait: %s", w.text)
	}
	must(t, c.WaitFor(ctx, `document.getElementById("status").className==="ok" && document.getElementById("status").textContent.startsWith("Done")`))
}
