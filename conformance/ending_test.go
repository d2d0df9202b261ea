//go:build unix

package conformance

import (
	"strings"
	"testing"
	"time"
)

// Issue 15: an interactive shell ignores SIGTERM; stop ends it the way
// closing its terminal does (SIGHUP), not by sitting out the grace period
// until SIGKILL.
// Spec: issue 15 item 5: "stop of an interactive shell always sits out the whole grace period and ends in SIGKILL ... end them the way closing a terminal does."
func TestStopInteractiveShellHangsUp(t *testing.T) {
	need(t, "bash")
	forEachProtocol(t, nil, func(t *testing.T, s *server) {
		r := s.exec("bash -i", map[string]any{"yield_ms": 5000})
		id := r.str("process_id")
		if r.str("status") != "backgrounded" {
			t.Fatalf("shell: %s", r.text)
		}
		st := s.call("stop", map[string]any{"process_id": id, "force_after_ms": 15000})
		if st.m["stopped"] != true || st.m["forced"] == true {
			t.Fatalf("stop: %s", st.text)
		}
		rd := s.call("read", map[string]any{"process_id": id}).mustStatus(t, "stopped")
		if rd.str("signal") == "SIGKILL" {
			t.Errorf("the shell was killed: %s", rd.text)
		}
	})
}

// Issue 15: write takes keys without input.
// Spec: issue 15 item 5: "write with only keys is refused because input is required; make input optional."
func TestWriteKeysOnly(t *testing.T) {
	forEachProtocol(t, nil, func(t *testing.T, s *server) {
		id := s.exec(`read x; echo "got[$x]"`, map[string]any{"yield_ms": 0}).str("process_id")
		w := s.call("write", map[string]any{"process_id": id, "keys": []string{"Space", "Enter"}, "yield_ms": 10000})
		if w.isError || w.m["ok"] != true {
			t.Fatalf("keys only: %s", w.text)
		}
		r := s.call("wait", map[string]any{"process_id": id, "timeout_ms": 10000})
		if !strings.Contains(r.str("stdout"), "got[]") {
			t.Errorf("after Space, Enter: %s", r.text)
		}
	})
}

// Issue 15: in PTY mode close_stdin after an unterminated line ends the
// input, as in pipe mode: the terminal needs EOF twice then.
// Spec: issue 15 item 5: "In PTY mode close_stdin after an unterminated line ... does not end the input: it must, as it does in pipe mode."
func TestCloseStdinAfterUnterminatedLine(t *testing.T) {
	forEachProtocol(t, nil, func(t *testing.T, s *server) {
		for _, tty := range []bool{true, false} {
			r := s.exec("wc -c", map[string]any{"stdin": "abc", "close_stdin": true, "tty": tty, "yield_ms": 10000})
			if r.str("status") != "completed" || !strings.Contains(r.str("stdout"), "3") {
				t.Errorf("tty=%v exec: %s", tty, r.text)
			}
			id := s.exec("wc -c", map[string]any{"tty": tty, "yield_ms": 0}).str("process_id")
			if w := s.call("write", map[string]any{"process_id": id, "input": "abcd", "close_stdin": true}); w.isError {
				t.Fatalf("tty=%v write: %s", tty, w.text)
			}
			start := time.Now()
			if w := s.call("wait", map[string]any{"process_id": id, "timeout_ms": 10000}); w.str("status") != "completed" || !strings.Contains(w.str("stdout"), "4") {
				t.Errorf("tty=%v write then wait (%v): %s", tty, time.Since(start), w.text)
			}
		}
	})
}
