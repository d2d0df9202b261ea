//go:build unix

package conformance

import (
	"strings"
	"testing"
)

// Spec: issue 34 item 2: "steps, a list of {input | keys, newline, until |
// input_wait (boolean), timeout_ms}, run in order, each waiting for its
// condition before the next is typed; the answer has steps, one result per
// step (ok, the output since the step began), and stops at the first step
// whose condition failed, naming it (failed_step). Secrets are never
// allowed inside steps."
func TestWriteSteps(t *testing.T) {
	forEachProtocol(t, nil, func(t *testing.T, s *server) {
		r := s.exec(helper("echo-lines"), map[string]any{"yield_ms": 3000}).mustStatus(t, "backgrounded")
		id := r.str("process_id")
		if r.m["waiting_for_input"] != true {
			t.Fatalf("echo-lines is not waiting: %s", r.text)
		}
		w := s.call("write", map[string]any{"process_id": id, "steps": []any{
			map[string]any{"input": "one", "newline": true},
			map[string]any{"input": "two", "newline": true, "until": "got: tw."},
			map[string]any{"input": "three", "newline": true, "input_wait": false},
			map[string]any{"input": "four", "newline": true, "until": "never-printed", "timeout_ms": 300},
			map[string]any{"input": "five", "newline": true},
		}})
		steps, _ := w.m["steps"].([]any)
		if w.isError || w.m["ok"] != true || w.num("failed_step") != 3 || len(steps) != 4 {
			t.Fatalf("steps: want failed_step 3 after 4 steps: %s", w.text)
		}
		for i, want := range []string{"got: one", "got: two", "", "got: four"} {
			st := steps[i].(map[string]any)
			out, _ := st["stdout"].(string)
			if ok := st["ok"] == true; ok != (i != 3) || !strings.Contains(out, want) {
				t.Errorf("step %d = %v, want ok %v and %q", i, st, i != 3, want)
			}
		}
		if got := steps[1].(map[string]any)["matched"]; got != "got: two" {
			t.Errorf("step 1 matched %v", got)
		}
		if o := steps[0].(map[string]any)["stdout"].(string); strings.Contains(o, "two") {
			t.Errorf("step 0 carries the next step's output: %q", o)
		}
		// Step 4 was never typed.
		if out := s.call("read", map[string]any{"process_id": id, "since_seq": 0}).str("stdout"); strings.Contains(out, "five") {
			t.Errorf("a step after the failed one was typed: %q", out)
		}
		all := s.call("write", map[string]any{"process_id": id, "steps": []any{
			map[string]any{"input": "six", "newline": true},
			map[string]any{"keys": []string{"C-d"}},
		}})
		if all.isError || all.has("failed_step") || all.m["ok"] != true || all.str("status") != "completed" {
			t.Errorf("steps ending the process: %s", all.text)
		}
	})
}

// A step typed at a password prompt is refused before anything is typed:
// secrets go through wait_for_password.
func TestWriteStepsRefuseSecrets(t *testing.T) {
	forEachProtocol(t, nil, func(t *testing.T, s *server) {
		r := s.exec(`stty -echo; printf 'Password: '; read pw; stty echo; echo "len ${#pw}"`, map[string]any{"yield_ms": 5000}).mustStatus(t, "backgrounded")
		if r.str("input_kind") != "password" {
			t.Fatalf("not a password prompt: %s", r.text)
		}
		w := s.call("write", map[string]any{"process_id": r.str("process_id"), "steps": []any{map[string]any{"input": "hunter2", "newline": true}}})
		if !w.isError || w.m["ok"] != false || w.num("failed_step") != 0 || !strings.Contains(w.str("error"), "wait_for_password") {
			t.Fatalf("a step at a password prompt: %s", w.text)
		}
		if s.call("read", map[string]any{"process_id": r.str("process_id")}).str("status") != "running" {
			t.Errorf("the prompt got input")
		}
		mixed := s.call("write", map[string]any{"process_id": r.str("process_id"), "input": "x", "steps": []any{map[string]any{"input": "y"}}})
		if !mixed.isError {
			t.Errorf("input with steps: %s", mixed.text)
		}
	})
}
