//go:build unix

package conformance

import (
	"strings"
	"testing"
)

// Spec: issue 34 item 1: "process_ids (instead of process_id) returns when
// the first of them finishes, waits for input, matches until, or the
// timeout passes; the answer names which one (process_id) and why, with its
// output (since the since_seq given for it, if any)."
func TestWaitMany(t *testing.T) {
	forEachProtocol(t, nil, func(t *testing.T, s *server) {
		slow := s.exec("sleep 60", map[string]any{"yield_ms": 0, "name": "slow"}).mustStatus(t, "backgrounded")
		slowID := slow.str("process_id")

		t.Run("exited", func(t *testing.T) {
			q := s.exec("sleep 0.3; echo finished-now", map[string]any{"yield_ms": 0, "name": "quick"}).mustStatus(t, "backgrounded")
			w := s.call("wait", map[string]any{"process_ids": []string{"slow", "quick"}, "timeout_ms": 20000})
			if w.isError || w.str("process_id") != q.str("process_id") || w.str("yield_reason") != "exited" ||
				w.str("status") != "completed" || !strings.Contains(w.str("stdout"), "finished-now") {
				t.Fatalf("wait on slow and quick: %s", w.text)
			}
			waited, _ := w.m["waited"].([]any)
			if len(waited) != 2 || waited[0].(map[string]any)["process_id"] != slowID ||
				waited[0].(map[string]any)["status"] != "running" || waited[1].(map[string]any)["status"] != "completed" {
				t.Errorf("waited = %v", w.m["waited"])
			}
		})
		t.Run("input_wait", func(t *testing.T) {
			a := s.exec(`sleep 0.2; printf 'name? '; read x; echo "hi $x"`, map[string]any{"yield_ms": 0})
			w := s.call("wait", map[string]any{"process_ids": []string{slowID, a.str("process_id")}, "timeout_ms": 20000})
			if w.str("process_id") != a.str("process_id") || w.str("yield_reason") != "input_wait" || w.m["waiting_for_input"] != true {
				t.Fatalf("wait on a prompt: %s", w.text)
			}
		})
		t.Run("until_since_seqs", func(t *testing.T) {
			d := s.exec("echo booting; sleep 0.3; echo listening on 8080; sleep 60", map[string]any{"yield_ms": 0, "name": "srv"})
			w := s.call("wait", map[string]any{"process_ids": []string{"slow", "srv"}, "since_seqs": map[string]any{"srv": 0},
				"until": "listening on \\d+", "timeout_ms": 20000})
			if w.str("process_id") != d.str("process_id") || w.str("yield_reason") != "pattern" || w.str("matched") != "listening on 8080" ||
				!strings.HasPrefix(w.str("stdout"), "booting") || w.num("start_seq") != 0 {
				t.Fatalf("wait until on srv: %s", w.text)
			}
		})
		t.Run("deadline", func(t *testing.T) {
			other := s.exec("sleep 60", map[string]any{"yield_ms": 0})
			w := s.call("wait", map[string]any{"process_ids": []string{"slow", other.str("process_id")}, "timeout_ms": 200})
			if w.isError || w.str("process_id") != slowID || w.str("yield_reason") != "deadline" || w.str("status") != "running" {
				t.Fatalf("wait until the deadline: %s", w.text)
			}
		})
		t.Run("errors", func(t *testing.T) {
			for _, args := range []map[string]any{
				{"process_ids": []string{"slow", "proc_nonexistent"}},
				{"process_ids": []string{"slow"}, "process_id": "slow"},
				{"process_ids": []string{"slow"}, "since_seqs": map[string]any{"quick": 0}},
				{},
			} {
				if w := s.call("wait", args); !w.isError || w.str("error") == "" {
					t.Errorf("wait(%v) = %s, want an error", args, w.text)
				}
			}
		})
	})
}
