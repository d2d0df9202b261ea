//go:build unix

package conformance

import (
	"fmt"
	"strings"
	"testing"
)

// Spec: issue 34 item 3: "when an answer's output exceeds its cap (exec,
// read, wait alike, by default), it keeps the head and the tail, cut at
// line boundaries where possible, and says what is left out as omitted:
// {from_seq, to_seq, bytes, lines} (to_seq exclusive, like next_seq), so
// that read with since_seq: from_seq returns exactly the missing part as
// far as it is still stored."
func TestLongOutputOmitted(t *testing.T) {
	slow(t, "megabytes of output through the server")
	forEachProtocol(t, []string{"YIELDSHELL_MAX_OUTPUT_BYTES=2000", "YIELDSHELL_MAX_BUFFER_BYTES=1048576"}, func(t *testing.T, s *server) {
		for _, tty := range []bool{true, false} {
			r := s.exec("seq 1 100000", map[string]any{"tty": tty, "yield_ms": 30000}).mustStatus(t, "completed")
			out := r.str("stdout")
			om, _ := r.m["omitted"].(map[string]any)
			if om == nil || len(out) > 2000 || !strings.HasPrefix(out, "1\n2\n3\n") || !strings.HasSuffix(out, "\n99999\n100000\n") || r.m["truncated"] != true {
				t.Fatalf("tty=%v: exec of seq: %d bytes, omitted %v: %.200q", tty, len(out), om, out)
			}
			from, to := int(om["from_seq"].(float64)), int(om["to_seq"].(float64))
			head := out[:from]
			if !strings.HasSuffix(head, "\n") || to != int(r.num("next_seq"))-(len(out)-from) || int(om["bytes"].(float64)) != to-from {
				t.Errorf("tty=%v: head ends at %d (%q), omitted %v, next_seq %v", tty, from, head[max(0, len(head)-10):], om, r.m["next_seq"])
			}
			// The lines left out are exactly those between the head's last
			// number and the tail's first.
			headLines, tailLines := strings.Count(head, "\n"), strings.Count(out[from:], "\n")
			if got := int(om["lines"].(float64)); got != 100000-headLines-tailLines {
				t.Errorf("tty=%v: omitted lines = %d, want %d", tty, got, 100000-headLines-tailLines)
			}
			// Reading from from_seq, page by page, returns the missing part.
			var missing strings.Builder
			for seq := from; seq < to; {
				p := s.call("read", map[string]any{"process_id": r.str("process_id"), "since_seq": seq, "max_output_bytes": 2000})
				if p.has("omitted") || p.m["evicted"] == true {
					t.Fatalf("tty=%v: a page from %d: %.300s", tty, seq, p.text)
				}
				missing.WriteString(p.str("stdout"))
				seq = int(p.num("next_seq"))
			}
			whole := head + missing.String()[:to-from] + out[from:]
			var want strings.Builder
			for i := 1; i <= 100000; i++ {
				fmt.Fprintf(&want, "%d\n", i)
			}
			if whole != want.String() {
				t.Errorf("tty=%v: head + read(from_seq) + tail is not the output (%d bytes, want %d)", tty, len(whole), want.Len())
			}
		}
	})
}

// The first bytes of the output outlive the ring: a compiler's first error
// is in the answer even when the ring kept only the end.
func TestHeadSurvivesEviction(t *testing.T) {
	forEachProtocol(t, []string{"YIELDSHELL_MAX_BUFFER_BYTES=4096", "YIELDSHELL_MAX_OUTPUT_BYTES=1000"}, func(t *testing.T, s *server) {
		r := s.exec("echo 'main.c:3: error: first'; seq 1 50000; echo done", map[string]any{"tty": false, "yield_ms": 30000}).mustStatus(t, "completed")
		out := r.str("stdout")
		om, _ := r.m["omitted"].(map[string]any)
		if !strings.HasPrefix(out, "main.c:3: error: first\n") || !strings.HasSuffix(out, "\ndone\n") || om == nil || om["evicted"] == nil {
			t.Fatalf("exec: %.300q omitted %v", out, om)
		}
		p := s.call("read", map[string]any{"process_id": r.str("process_id"), "since_seq": om["from_seq"]})
		if p.m["evicted"] != true || p.num("start_seq") != om["from_seq"].(float64)+om["evicted"].(float64) {
			t.Errorf("read from_seq: evicted %v start_seq %v; omitted %v", p.m["evicted"], p.m["start_seq"], om)
		}
	})
}

// Spec: issue 34 item 3: "Binary output (a NUL or a high share of invalid
// UTF-8 in a chunk) is answered with binary: true and a byte count instead
// of replacement characters, and still stored losslessly." (More in
// binary_test.go.)
func TestBinaryOutput(t *testing.T) {
	forEachProtocol(t, nil, func(t *testing.T, s *server) {
		r := s.exec(`head -c 3000 "$YS_HELPER_BIN"`, map[string]any{"tty": false}).mustStatus(t, "completed")
		// bytes counts what the program wrote: binary output bypasses the
		// escape filter into the log (it is never shown as text; see
		// binary_test.go).
		if r.m["binary"] != true || r.str("stdout") != "" || r.num("bytes") != 3000 || r.num("bytes") != r.num("next_seq") {
			t.Fatalf("binary exec: binary %v bytes %v next_seq %v stdout %.80q", r.m["binary"], r.m["bytes"], r.m["next_seq"], r.str("stdout"))
		}
		if r := s.exec("echo plain text", nil); r.has("binary") {
			t.Errorf("text called binary: %s", r.text)
		}
	})
}
