//go:build linux

package conformance

import (
	"strings"
	"testing"
	"time"
)

// Resource subscriptions are told at once when the program starts waiting
// for input and when it ends (the input-wait probe is Linux's).
func TestResourceSubscribeInputAndEnd(t *testing.T) {
	forEachProtocolNotes(t, nil, func(t *testing.T, s *server, n *notes) {
		r := s.exec(`read x; echo "got $x"`, map[string]any{"name": "asker", "yield_ms": longYield})
		id := r.str("process_id")
		t.Cleanup(func() { s.stopQuietly(id) })
		if r.m["waiting_for_input"] != true {
			t.Fatalf("exec: %s", r.text)
		}
		// Nothing is printed from here on: the first notification is the
		// input wait's, told once the subscription is followed.
		uri := logURI("asker")
		s.subscribe(t, n, uri)
		since := time.Now()
		s.call("write", map[string]any{"process_id": id, "input": "hello", "newline": true, "yield_ms": 0})
		var ended time.Time
		eventually(t, 10*time.Second, "the process to end", func() bool {
			ps := s.call("ps", nil)
			for _, p := range ps.m["processes"].([]any) {
				e := p.(map[string]any)
				if e["process_id"] == id && e["ended_at"] != nil {
					ended = time.UnixMicro(int64(e["ended_at"].(float64) * 1e6))
					return true
				}
			}
			return false
		})
		n.await(t, 5*time.Second, "resources/updated after the end", func() bool {
			return n.count(uri, ended.Add(-time.Millisecond)) > 0
		})
		n.mu.Lock()
		var at []time.Duration
		for _, u := range n.updated {
			if u.uri == uri && u.at.After(since) {
				at = append(at, u.at.Sub(ended))
			}
		}
		n.mu.Unlock()
		t.Logf("notifications after the write, relative to the end: %v", at)
		_, text, meta := s.readResource(t, uri)
		if meta["status"] != "completed" || !strings.Contains(text, "got hello") {
			t.Errorf("after the end: %q %v", text, meta)
		}
	})
}

// A secret the server has seen is redacted in the resources as in read:
// the log and the screen of the process that echoes it.
func TestResourceSecretRedacted(t *testing.T) {
	const secret = "resource-Secret-4471"
	cmd := pyScript(t, "import getpass\npw = getpass.getpass('Password: ')\nprint('you typed', pw)\ninput('more? ')\n")
	forEachProtocol(t, nil, func(t *testing.T, s *server) {
		r := waiting(t, s.exec(cmd, map[string]any{"name": "secretive", "yield_ms": longYield}), "password")
		id := r.str("process_id")
		t.Cleanup(func() { s.stopQuietly(id) })
		a := s.call("write", map[string]any{"process_id": id, "input": secret, "newline": true, "wait_for_password": true, "yield_ms": longYield})
		if a.isError || !strings.Contains(a.str("stdout"), "you typed") {
			t.Fatalf("write: %s", a.text)
		}
		for _, uri := range []string{logURI(id), logURI("secretive") + "?since_seq=0", screenURI("secretive")} {
			res, text, _ := s.readResource(t, uri)
			b, _ := jsonMarshal(res)
			if strings.Contains(string(b), secret) {
				t.Errorf("%s: the secret leaked: %s", uri, b)
			}
			if !strings.Contains(text, "you typed") {
				t.Errorf("%s: %q", uri, text)
			}
		}
	})
}
