//go:build unix

package conformance

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Issue 34 item 4: a process's output as MCP resources. Its log and its
// screen are resources (yieldshell://process/{process_id}/log, .../screen;
// a name works as well as an id), read as the read tool reads them
// (since_seq as a query parameter), listed while the process runs,
// subscribable (notifications/resources/updated on new output, throttled,
// and at once at an input wait and at the end), with completions for the
// process ids and names; exec, read and ps answers link to the log.

const (
	logTemplate    = "yieldshell://process/{process_id}/log{?since_seq}"
	screenTemplate = "yieldshell://process/{process_id}/screen{?since_seq}"
)

func logURI(ref string) string    { return "yieldshell://process/" + url.PathEscape(ref) + "/log" }
func screenURI(ref string) string { return "yieldshell://process/" + url.PathEscape(ref) + "/screen" }

// notes collects a client's resource notifications.
type notes struct {
	mu      sync.Mutex
	updated []note
	listed  int
	wake    chan struct{}
}

type note struct {
	uri string
	at  time.Time
}

func newNotes() *notes { return &notes{wake: make(chan struct{}, 1)} }

func (n *notes) poke() {
	select {
	case n.wake <- struct{}{}:
	default:
	}
}

// client is a client that records n.
func (n *notes) client() *mcp.Client {
	return mcp.NewClient(&mcp.Implementation{Name: "conformance", Version: "0"}, &mcp.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) {
			n.mu.Lock()
			n.updated = append(n.updated, note{r.Params.URI, time.Now()})
			n.mu.Unlock()
			n.poke()
		},
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) {
			n.mu.Lock()
			n.listed++
			n.mu.Unlock()
			n.poke()
		},
	})
}

// count returns how many updated notifications for uri arrived at or
// after since.
func (n *notes) count(uri string, since time.Time) int {
	n.mu.Lock()
	defer n.mu.Unlock()
	c := 0
	for _, u := range n.updated {
		if u.uri == uri && !u.at.Before(since) {
			c++
		}
	}
	return c
}

// await waits until f holds, checking it at every notification, and
// fails after within.
func (n *notes) await(t *testing.T, within time.Duration, what string, f func() bool) {
	t.Helper()
	deadline := time.NewTimer(within)
	defer deadline.Stop()
	for !f() {
		select {
		case <-n.wake:
		case <-deadline.C:
			t.Fatalf("no %s within %v", what, within)
		}
	}
}

// forEachProtocolNotes is forEachProtocol with a client that records its
// resource notifications.
func forEachProtocolNotes(t *testing.T, env []string, f func(t *testing.T, s *server, n *notes)) {
	t.Helper()
	for _, v := range protocols {
		t.Run(protoName(v), func(t *testing.T) {
			n := newNotes()
			s, err := connectClient(t, n.client(), v, env...)
			if err != nil {
				t.Fatal(err)
			}
			f(t, s, n)
		})
	}
}

// readResource reads uri; it returns the first contents' text and the read
// answer in its _meta.
func (s *server) readResource(t *testing.T, uri string) (*mcp.ReadResourceResult, string, map[string]any) {
	t.Helper()
	res, err := s.cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		t.Fatalf("reading %s: %v", uri, err)
	}
	if len(res.Contents) == 0 {
		t.Fatalf("reading %s: no contents", uri)
	}
	meta, _ := res.Contents[0].Meta["yieldshell/read"].(map[string]any)
	if meta == nil {
		t.Fatalf("reading %s: no read answer in _meta: %+v", uri, res.Contents[0])
	}
	return res, res.Contents[0].Text, meta
}

// rpcCode is the JSON-RPC error code of err, or 0.
func rpcCode(err error) int64 {
	var je *jsonrpc.Error
	if errors.As(err, &je) {
		return je.Code
	}
	return 0
}

func TestResourceTemplatesAndList(t *testing.T) {
	forEachProtocolNotes(t, nil, func(t *testing.T, s *server, n *notes) {
		init := s.cs.InitializeResult()
		if c := init.Capabilities.Resources; c == nil || !c.Subscribe || !c.ListChanged {
			t.Errorf("resources capability = %+v, want subscribe and listChanged", c)
		}
		if init.Capabilities.Completions == nil {
			t.Error("no completions capability")
		}
		tl, err := s.cs.ListResourceTemplates(t.Context(), nil)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, rt := range tl.ResourceTemplates {
			got = append(got, rt.URITemplate)
		}
		slices.Sort(got)
		if want := []string{logTemplate, screenTemplate}; !slices.Equal(got, want) {
			t.Errorf("templates = %v, want %v", got, want)
		}

		listed := func() map[string]bool {
			l, err := s.cs.ListResources(t.Context(), nil)
			if err != nil {
				t.Fatal(err)
			}
			m := map[string]bool{}
			for _, r := range l.Resources {
				m[r.URI] = true
			}
			return m
		}
		tty := s.exec("cat", map[string]any{"name": "listed", "yield_ms": 100}).mustStatus(t, "backgrounded")
		pipe := s.exec("cat", map[string]any{"tty": false, "yield_ms": 100}).mustStatus(t, "backgrounded")
		l := listed()
		for _, uri := range []string{logURI(tty.str("process_id")), screenURI(tty.str("process_id")), logURI(pipe.str("process_id"))} {
			if !l[uri] {
				t.Errorf("%s is not listed: %v", uri, l)
			}
		}
		if l[screenURI(pipe.str("process_id"))] {
			t.Errorf("a process without a terminal lists a screen: %v", l)
		}
		// The client was told the list changed (the default protocol's
		// client asks for it through subscriptions/listen).
		n.await(t, 5*time.Second, "resources/list_changed after a start", func() bool {
			n.mu.Lock()
			defer n.mu.Unlock()
			return n.listed > 0
		})
		s.call("stop", map[string]any{"process_id": "listed", "signal": "SIGKILL"})
		eventually(t, 5*time.Second, "the ended process's resources to leave the list", func() bool {
			l := listed()
			return !l[logURI(tty.str("process_id"))] && !l[screenURI(tty.str("process_id"))] && l[logURI(pipe.str("process_id"))]
		})
	})
}

// A resource read answers what read answers: the same text, the same
// positions, by id and by name, with since_seq as a query parameter.
func TestResourceReadIsRead(t *testing.T) {
	forEachProtocol(t, nil, func(t *testing.T, s *server) {
		r := s.exec(`printf 'one\ntwo\nthree\n'`, map[string]any{"name": "My Lines"}).mustStatus(t, "completed")
		id := r.str("process_id")
		for _, c := range []struct {
			uri   string
			since any
		}{
			{logURI(id), nil},
			{logURI("my-lines"), nil},
			{logURI("My Lines"), nil}, // escaped: My%20Lines, compared as tools compare names
			{logURI(id) + "?since_seq=4", 4},
			{logURI("my-lines") + "?since_seq=0", 0},
			{logURI(id) + "?since_seq=-7", -7},
			{logURI(id) + "?since_seq=4503599627370496", int64(1) << 52}, // past the end
		} {
			args := map[string]any{"process_id": id}
			if c.since != nil {
				args["since_seq"] = c.since
			}
			want := s.call("read", args)
			_, text, meta := s.readResource(t, c.uri)
			if text != want.str("stdout") {
				t.Errorf("%s: text %q, read's stdout %q", c.uri, text, want.str("stdout"))
			}
			delete(want.m, "stdout")
			delete(want.m, "stderr")
			if !jsonEqual(meta, want.m) {
				t.Errorf("%s: _meta differs from read's answer:\nmeta: %v\nread: %v", c.uri, meta, want.m)
			}
		}
		if _, text, _ := s.readResource(t, logURI(id)+"?since_seq=4"); text != "two\nthree\n" {
			t.Errorf("since_seq=4: %q", text)
		}
		// Past what JSON numbers carry exactly: nothing, and where the log ends.
		if _, text, meta := s.readResource(t, logURI(id)+"?since_seq=9223372036854775807"); text != "" || meta["next_seq"] != float64(14) {
			t.Errorf("since_seq=MaxInt64: %q %v", text, meta)
		}
	})
}

// jsonEqual compares two decoded JSON values.
func jsonEqual(a, b any) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

// codeNotFound is resource-not-found as docs/tools.md documents it.
const codeNotFound = -32002

// Every URI is the client's input: those that name nothing are refused
// with an error that says why, never served from somewhere else.
func TestResourceURIsAreInput(t *testing.T) {
	forEachProtocol(t, nil, func(t *testing.T, s *server) {
		id := s.exec("echo hi", map[string]any{"tty": false}).mustStatus(t, "completed").str("process_id")
		for _, c := range []struct {
			uri  string
			code int64
		}{
			{"yieldshell://process/proc_000000000000/log", codeNotFound},
			{"yieldshell://process/../log", codeNotFound},
			{"yieldshell://process/..%2F..%2Fetc%2Fpasswd/log", codeNotFound},
			{"yieldshell://process/" + strings.Repeat("a", 300) + "/log", jsonrpc.CodeInvalidParams},
			{"yieldshell://process//log", jsonrpc.CodeInvalidParams},
			{"yieldshell://process/%zz/log", jsonrpc.CodeInvalidParams},
			{"yieldshell://process/" + id + "/log?since_seq=99999999999999999999", jsonrpc.CodeInvalidParams},
			{"yieldshell://process/" + id + "/log?since_seq=abc", jsonrpc.CodeInvalidParams},
			{"yieldshell://process/" + id + "/log?since_seq=1&since_seq=2", jsonrpc.CodeInvalidParams},
			{"yieldshell://process/" + id + "/log?file=/etc/passwd", jsonrpc.CodeInvalidParams},
			{"yieldshell://process/" + id + "/log#x", jsonrpc.CodeInvalidParams}, // matches no template
			{"yieldshell://process/" + id + "/stdin", jsonrpc.CodeInvalidParams},
			{"yieldshell://process/" + id + "/log/x", jsonrpc.CodeInvalidParams},
			{"yieldshell://process/" + id + "/screen", jsonrpc.CodeInvalidParams}, // no terminal
			{"file:///etc/passwd", jsonrpc.CodeInvalidParams},
		} {
			_, err := s.cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: c.uri})
			if err == nil {
				t.Errorf("%s was served", c.uri)
				continue
			}
			if got := rpcCode(err); got != c.code {
				t.Errorf("%s: error %v (code %d), want code %d", c.uri, err, got, c.code)
			}
			if strings.Contains(err.Error(), "root:") {
				t.Errorf("%s: %v", c.uri, err)
			}
			// Each says why, as docs/tools.md promises (issue 41 item 6).
			if msg := err.Error(); strings.Contains(msg, "Resource not found") ||
				c.code == codeNotFound && !strings.Contains(msg, "no process by that id or name") {
				t.Errorf("%s: %v says not why", c.uri, err)
			}
		}
	})
}

// subscribe subscribes to uri and waits for its first notification: under
// the default protocol the subscription is a stream that opens after
// Subscribe returns, and a process that prints keeps notifying.
func (s *server) subscribe(t *testing.T, n *notes, uri string) {
	t.Helper()
	since := time.Now()
	if err := s.cs.Subscribe(t.Context(), &mcp.SubscribeParams{URI: uri}); err != nil {
		t.Fatalf("subscribing to %s: %v", uri, err)
	}
	n.await(t, 10*time.Second, "resources/updated for "+uri, func() bool { return n.count(uri, since) > 0 })
}

// waitWindow returns once d has passed, measured by a timer: the window
// over which notifications are counted.
func waitWindow(d time.Duration) time.Time {
	start := time.Now()
	<-time.After(d)
	return start
}

// New output is told, at most once per 250 ms per URI, by id and by name;
// unsubscribing stops it.
func TestResourceSubscribeThrottled(t *testing.T) {
	slow(t, "2 s windows of notifications")
	forEachProtocolNotes(t, nil, func(t *testing.T, s *server, n *notes) {
		r := s.exec(helper("ticker", "2"), map[string]any{"name": "ticker", "yield_ms": 100}).mustStatus(t, "backgrounded")
		byID, byName := logURI(r.str("process_id")), logURI("ticker")
		s.subscribe(t, n, byID)
		s.subscribe(t, n, byName)
		s.subscribe(t, n, screenURI("ticker"))
		const window = 2 * time.Second
		start := waitWindow(window)
		for _, uri := range []string{byID, byName, screenURI("ticker")} {
			got := n.count(uri, start)
			t.Logf("%s: %d notifications in %v (%.1f/s) for 500 lines/s", uri, got, window, float64(got)/window.Seconds())
			if most := int(window/(250*time.Millisecond)) + 1; got > most || got < 2 {
				t.Errorf("%s: %d notifications in %v, want 2..%d", uri, got, window, most)
			}
		}
		for _, uri := range []string{byID, byName, screenURI("ticker")} {
			if err := s.cs.Unsubscribe(t.Context(), &mcp.UnsubscribeParams{URI: uri}); err != nil {
				t.Fatal(err)
			}
		}
		// What was in flight arrives within a notification interval or two.
		<-time.After(500 * time.Millisecond)
		start = waitWindow(time.Second)
		for _, uri := range []string{byID, byName, screenURI("ticker")} {
			if got := n.count(uri, start); got != 0 {
				t.Errorf("%s: %d notifications after unsubscribing", uri, got)
			}
		}
	})
}

// Completions offer the ids and names of the processes for either
// template's process_id; names compare as the tools compare them.
func TestResourceCompletion(t *testing.T) {
	forEachProtocol(t, nil, func(t *testing.T, s *server) {
		var ids []string
		for _, name := range []string{"alpha-web", "alpha-db", "beta"} {
			ids = append(ids, s.exec("echo "+name, map[string]any{"name": name}).mustStatus(t, "completed").str("process_id"))
		}
		complete := func(uri, arg, value string) []string {
			t.Helper()
			res, err := s.cs.Complete(t.Context(), &mcp.CompleteParams{
				Ref:      &mcp.CompleteReference{Type: "ref/resource", URI: uri},
				Argument: mcp.CompleteParamsArgument{Name: arg, Value: value}})
			if err != nil {
				t.Fatal(err)
			}
			v := slices.Clone(res.Completion.Values)
			slices.Sort(v)
			return v
		}
		for _, c := range []struct {
			uri, arg, value string
			want            []string
		}{
			{logTemplate, "process_id", "alpha", []string{"alpha-db", "alpha-web"}},
			{screenTemplate, "process_id", "ALPHA W", []string{"alpha-web"}},
			{logTemplate, "process_id", ids[2], []string{ids[2]}},
			{logTemplate, "process_id", "zzz", []string{}},
			{logTemplate, "since_seq", "", []string{}},
			{"yieldshell://other/{process_id}", "process_id", "", []string{}},
		} {
			if got := complete(c.uri, c.arg, c.value); !slices.Equal(got, c.want) {
				t.Errorf("complete %s %s=%q: %v, want %v", c.uri, c.arg, c.value, got, c.want)
			}
		}
		all := complete(logTemplate, "process_id", "")
		for _, want := range append([]string{"alpha-web", "alpha-db", "beta"}, ids...) {
			if !slices.Contains(all, want) {
				t.Errorf("completing nothing: %v lacks %s", all, want)
			}
		}
	})
}

// exec, read and ps answers link to the log of the process they are
// about, beside their text, where the operator turned links on.
func TestResourceLinks(t *testing.T) {
	forEachProtocol(t, []string{"YIELDSHELL_RESOURCE_LINKS=1"}, func(t *testing.T, s *server) {
		links := func(tool string, args map[string]any) (map[string]any, []*mcp.ResourceLink) {
			t.Helper()
			res, err := s.cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tool, Arguments: args})
			if err != nil || res.IsError {
				t.Fatalf("%s: %v %v", tool, err, res)
			}
			if _, ok := res.Content[0].(*mcp.TextContent); !ok {
				t.Errorf("%s: the first content is %T, want the text", tool, res.Content[0])
			}
			var out []*mcp.ResourceLink
			for _, c := range res.Content[1:] {
				l, ok := c.(*mcp.ResourceLink)
				if !ok {
					t.Errorf("%s: content %T after the text", tool, c)
					continue
				}
				out = append(out, l)
			}
			return res.StructuredContent.(map[string]any), out
		}
		out, l := links("exec", map[string]any{"command": "echo linked", "side_effects": []string{"NONE"}, "name": "linked"})
		id, _ := out["process_id"].(string)
		if len(l) != 1 || l[0].URI != logURI(id) || l[0].MIMEType != "text/plain" || l[0].Name == "" {
			t.Errorf("exec links: %+v", l)
		} else if _, text, _ := s.readResource(t, l[0].URI); text != "linked\n" {
			t.Errorf("the linked log reads %q", text)
		}
		if _, l := links("read", map[string]any{"process_id": "linked"}); len(l) != 1 || l[0].URI != logURI(id) {
			t.Errorf("read links: %+v", l)
		}
		id2 := s.exec("echo second", nil).str("process_id")
		if _, l := links("ps", nil); len(l) != 2 || l[0].URI != logURI(id2) || l[1].URI != logURI(id) {
			t.Errorf("ps links: %+v", l)
		}
	})
}

// TestResourceLinksOptIn: by default an answer is one text item, as
// mcp-yieldshell 0.4.0's suite expects (test_stdio_server_lists_and_
// executes_tools) and as clients that render links as text want; a
// client that reads a resource shows it uses them and gets them from
// then on (issue 41 item 7). It logs the bytes of an exec answer both ways.
func TestResourceLinksOptIn(t *testing.T) {
	forEachProtocol(t, nil, func(t *testing.T, s *server) {
		call := func() (*mcp.CallToolResult, int) {
			t.Helper()
			res, err := s.cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "exec",
				Arguments: map[string]any{"command": "echo hi", "side_effects": []string{"NONE"}}})
			if err != nil || res.IsError {
				t.Fatalf("exec: %v %v", err, res)
			}
			b, _ := json.Marshal(res)
			return res, len(b)
		}
		res, without := call()
		if len(res.Content) != 1 {
			t.Fatalf("exec answered %d content items before the client used resources, want 1", len(res.Content))
		}
		id := res.StructuredContent.(map[string]any)["process_id"].(string)
		s.readResource(t, logURI(id))
		res, with := call()
		if len(res.Content) != 2 {
			t.Fatalf("exec answered %d content items after the client read a resource, want the text and a link", len(res.Content))
		}
		t.Logf("exec answer: %d bytes without the link, %d with it (+%d)", without, with, with-without)
	})
}

// Binary output is a blob with its bytes, where read says binary.
func TestResourceBinaryIsBlob(t *testing.T) {
	forEachProtocol(t, nil, func(t *testing.T, s *server) {
		r := s.exec(`printf 'a\000b\000c\000'`, map[string]any{"tty": false}).mustStatus(t, "completed")
		read := s.call("read", map[string]any{"process_id": r.str("process_id")})
		if read.m["binary"] != true {
			t.Fatalf("read: %s", read.text)
		}
		res, _, meta := s.readResource(t, logURI(r.str("process_id")))
		c := res.Contents[0]
		if string(c.Blob) != "a\x00b\x00c\x00" || c.Text != "" || c.MIMEType != "application/octet-stream" {
			t.Errorf("contents: %+v", c)
		}
		if meta["binary"] != true || meta["bytes"] != float64(6) {
			t.Errorf("meta: %v", meta)
		}
	})
}

// The screen resource is the terminal as read's view "screen" shows it: a
// full-screen program's rows.
func TestResourceScreen(t *testing.T) {
	need(t, "vim")
	forEachProtocol(t, nil, func(t *testing.T, s *server) {
		file := t.TempDir() + "/notes.txt"
		r := s.exec("vim -u NONE -N -n "+file, map[string]any{"name": "editor", "yield_ms": 3000})
		id := r.str("process_id")
		t.Cleanup(func() { s.stopQuietly(id) })
		s.call("write", map[string]any{"process_id": id, "input": "iscreen resource text", "yield_ms": 1000})
		var text string
		var meta map[string]any
		eventually(t, 10*time.Second, "the typed text on the screen resource", func() bool {
			_, text, meta = s.readResource(t, screenURI("editor"))
			return strings.Contains(text, "screen resource text")
		})
		sc, _ := meta["screen"].(map[string]any)
		if sc == nil || sc["alt_screen"] != true || !strings.Contains(text, "~") {
			t.Errorf("screen: %q %v", text, meta)
		}
		want := s.call("read", map[string]any{"process_id": id, "view": "screen"})
		if lines, _ := want.m["screen"].(map[string]any)["lines"].([]any); len(lines) == 0 || !jsonEqual(lines, sc["lines"]) {
			t.Errorf("the resource's rows differ from read's:\n%v\n%v", lines, sc["lines"])
		}
	})
}

func jsonMarshal(v any) ([]byte, error) { return json.Marshal(v) }

// The shell-yeah toolset's processes are resources too.
func TestResourcesInShellYeahToolset(t *testing.T) {
	forEachProtocol(t, []string{"YIELDSHELL_TOOLSET=shell-yeah"}, func(t *testing.T, s *server) {
		s.call("start_shell", map[string]any{"command": "sh", "args": []string{"-c", "echo shell-yeah-output; cat"},
			"workingDirectory": t.TempDir(), "label": "sy"})
		t.Cleanup(func() { s.stopQuietly("sy") })
		var text string
		eventually(t, 10*time.Second, "the shell's output in its log resource", func() bool {
			_, text, _ = s.readResource(t, logURI("sy"))
			return strings.Contains(text, "shell-yeah-output")
		})
		l, err := s.cs.ListResources(t.Context(), nil)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, r := range l.Resources {
			if strings.HasSuffix(r.URI, "/log") {
				_, lt, _ := s.readResource(t, r.URI)
				found = found || strings.Contains(lt, "shell-yeah-output")
			}
		}
		if !found {
			t.Errorf("the shell is not listed: %+v", l.Resources)
		}
	})
}

// Over streamable HTTP, at both protocol versions, resources are read and
// their subscriptions notified as over stdio.
func TestResourcesOverHTTP(t *testing.T) {
	statSources()
	h := startHTTP(t, t.Context())
	for _, v := range protocols {
		t.Run(protoName(v), func(t *testing.T) {
			n := newNotes()
			tr := &mcp.StreamableClientTransport{Endpoint: h.url, HTTPClient: &http.Client{Transport: bearer(httpToken)}}
			cs, err := n.client().Connect(t.Context(), tr, &mcp.ClientSessionOptions{ProtocolVersion: v})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = cs.Close() })
			s := &server{t: t, cs: cs}
			name := "http-ticker-" + protoName(v)
			s.exec(helper("ticker", "50"), map[string]any{"name": name, "yield_ms": 100}).mustStatus(t, "backgrounded")
			s.subscribe(t, n, logURI(name))
			if _, text, _ := s.readResource(t, logURI(name)); !strings.Contains(text, "tick ") {
				t.Errorf("the log over http: %q", text)
			}
		})
	}
}
