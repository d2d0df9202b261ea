//go:build unix

package conformance

import (
	"strings"
	"testing"
)

// A count of milliseconds too large for the server's clock means a long
// time, not none: yield_ms of 9227000000000 (beyond 292 years) waits for
// the command as the largest yield does, where it wrapped around to a
// negative yield and backgrounded the command at once; wait's timeout_ms
// likewise waits for the end.
func TestHugeMillisecondsMeanLong(t *testing.T) {
	forEachProtocol(t, nil, func(t *testing.T, s *server) {
		const huge = 9227000000000
		r := s.exec("sleep 0.2; echo done", map[string]any{"yield_ms": huge})
		if r.str("status") != "completed" || !hasLine(r, "done") {
			t.Errorf("exec with yield_ms %d: %s", huge, r.text)
		}
		id := s.exec("sleep 0.2; echo later", map[string]any{"yield_ms": 0}).mustStatus(t, "backgrounded").str("process_id")
		w := s.call("wait", map[string]any{"process_id": id, "timeout_ms": huge})
		if w.str("status") != "completed" || !strings.Contains(w.str("stdout"), "later") {
			t.Errorf("wait with timeout_ms %d: %s", huge, w.text)
		}
	})
}

// The shell-yeah tools read their times the same way: a verification
// timeout beyond 292 years waits for the pattern, and wait_for_shell's
// timeout_seconds of 1e300 (a float no duration holds) waits for the
// status.
func TestHugeTimesInShellYeahTools(t *testing.T) {
	forEachProtocol(t, []string{"YIELDSHELL_TOOLSET=all"}, func(t *testing.T, s *server) {
		wd := t.TempDir()
		st := s.call("start_shell_with_verification", map[string]any{"command": "sh", "args": []string{"-c", "sleep 0.2; echo ready; sleep 0.2; exit 3"},
			"workingDirectory": wd, "label": "huge", "verification_pattern": "^ready$", "verification_timeout_ms": 9227000000000})
		if st.isError || st.m["verified"] != true {
			t.Fatalf("start_shell_with_verification: %s", st.text)
		}
		w := s.call("wait_for_shell", map[string]any{"label": "huge", "target_status": "crashed", "timeout_seconds": 1e300})
		if w.str("final_status") != "crashed" || w.m["timed_out"] != false {
			t.Errorf("wait_for_shell: %s", w.text)
		}
	})
}
