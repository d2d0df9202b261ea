//go:build unix

package conformance

import (
	"strings"
	"testing"
	"time"
)

// A person's hold on a handed-over terminal covers every way the agent
// acts on the program: write, and stop (any signal) and restart too.
//
// Spec: issue 38 item 7: "a person's hold covers signals, stop and restart".
func TestHoldCoversSignals(t *testing.T) {
	need(t, "bash")
	s := start(t, "")
	r := waiting(t, s.exec(`read -r -p "name? " n; echo "hello $n"; read -r -p "more? " m`,
		map[string]any{"shell": "bash", "name": "held", "yield_ms": longYield}), "line")
	id := r.str("process_id")
	a := s.call("ask_human", map[string]any{"process_id": id, "message": "Please tell it your name."})
	u := a.str("url")
	if a.isError || u == "" {
		t.Fatalf("ask_human: %s", a.text)
	}
	p := newPerson(t)
	p.open(u)
	eventually(t, 10*time.Second, "the person's hold", func() bool {
		return s.call("write", map[string]any{"process_id": id, "input": ""}).isError
	})
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"stop", map[string]any{"process_id": id, "signal": "SIGINT"}},
		{"stop", map[string]any{"process_id": id}},
		{"restart", map[string]any{"process_id": id}},
	} {
		if got := s.call(c.tool, c.args); !got.isError || !strings.Contains(got.text, "person holds this terminal") {
			t.Errorf("%s %v while a person holds the terminal: %s", c.tool, c.args, got.text)
		}
	}
	s.call("read", map[string]any{"process_id": id}).mustStatus(t, "running")
	p.keys(u, "Ada\r")
	s.readUntil(id, "hello Ada")
	p.press(u, "done")
}
