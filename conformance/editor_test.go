//go:build unix

package conformance

import (
	"strings"
	"testing"
)

// node's .editor mode reads lines without a prompt until Ctrl-D: each
// line written answers at once, as at the REPL's own prompt, and Ctrl-D
// evaluates them and brings the prompt back.
//
// Spec: issue 15 item 2: "node's .editor mode ... wait out the whole yield_ms".
func TestPromptNodeEditor(t *testing.T) {
	need(t, "node")
	forEachProtocol(t, nil, func(t *testing.T, s *server) {
		r := waiting(t, s.exec("node", map[string]any{"yield_ms": longYield}), "line")
		id := r.str("process_id")
		a := waiting(t, s.reply(id, ".editor"), "line")
		if !strings.Contains(a.str("stdout"), "Entering editor mode") {
			t.Fatalf(".editor: %s", a.text)
		}
		waiting(t, s.reply(id, "let a = 6"), "line")
		waiting(t, s.reply(id, "a * 7"), "line")
		end := s.call("write", map[string]any{"process_id": id, "keys": []string{"C-d"}, "yield_ms": longYield})
		waiting(t, end, "line")
		if !strings.Contains(end.str("stdout"), "42") || end.str("prompt") != "> " {
			t.Errorf("Ctrl-D: %s", end.text)
		}
	})
}
