package conformance

import (
	"testing"
	"time"
)

// Behaviours mcp-yieldshell 0.4.0's clients and tests rely on (issue 17).
// Each test names the behaviour it checks.

// ps counts every byte a process printed, a line still being written (no
// newline yet) included.
func TestPsCountsBytesOfAnUnfinishedLine(t *testing.T) {
	s := start(t, "")
	id := s.exec("sleep 0.2; printf 0123456789; sleep 30", map[string]any{"yield_ms": 0}).mustStatus(t, "backgrounded").str("process_id")
	eventually(t, 10*time.Second, "ps to count the 10 bytes", func() bool {
		for _, e := range s.call("ps", nil).m["processes"].([]any) {
			if e := e.(map[string]any); e["process_id"] == id {
				return e["stdout_bytes"] == float64(10)
			}
		}
		return false
	})
}
