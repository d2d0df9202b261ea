//go:build unix

package conformance

import (
	"strings"
	"testing"
)

// Spec: 0.4.0 Incremental Reads: "To retrieve only new output, call read with since_seq set to the previously received next_seq."
func TestReadSinceSeq(t *testing.T) {
	forEachProtocol(t, nil, func(t *testing.T, s *server) {
		r := s.exec(helper("echo-lines"), map[string]any{"yield_ms": 0})
		id := r.str("process_id")
		s.call("write", map[string]any{"process_id": id, "input": "one", "newline": true})
		s.readUntil(id, "got: one")
		first := s.call("read", map[string]any{"process_id": id})
		next := first.num("next_seq")
		if next != float64(len(first.str("stdout"))) {
			t.Errorf("next_seq = %v after %d bytes", next, len(first.str("stdout")))
		}
		s.call("write", map[string]any{"process_id": id, "input": "two", "newline": true})
		var got string
		eventually(t, 10e9, "got: two", func() bool {
			r := s.call("read", map[string]any{"process_id": id, "since_seq": next})
			got = r.str("stdout")
			return strings.Contains(got, "got: two")
		})
		if strings.Contains(got, "one") {
			t.Errorf("read since_seq returned old output: %q", got)
		}
		if r := s.call("read", map[string]any{"process_id": id, "since_seq": 1 << 40}); r.str("stdout") != "" {
			t.Errorf("read past the end = %q, want \"\"", r.str("stdout"))
		}
		for _, k := range []string{"process_id", "status", "exit_code", "signal", "next_seq", "truncated", "stdout", "stderr"} {
			if !first.has(k) {
				t.Errorf("read answer lacks %q: %s", k, first.text)
			}
		}
	})
}

// Spec: 0.4.0 read: "\"both\" includes both, \"stdout\" includes only stdout, and \"stderr\" includes only stderr."
func TestReadStreams(t *testing.T) {
	forEachProtocol(t, nil, func(t *testing.T, s *server) {
		r := s.exec("echo out; echo err >&2", map[string]any{"tty": false}).mustStatus(t, "completed")
		id := r.str("process_id")
		out := s.call("read", map[string]any{"process_id": id, "streams": "stdout"})
		if out.str("stdout") != "out\n" || out.has("stderr") {
			t.Errorf("streams=stdout: %s", out.text)
		}
		errs := s.call("read", map[string]any{"process_id": id, "streams": "stderr"})
		if errs.str("stderr") != "err\n" || errs.has("stdout") {
			t.Errorf("streams=stderr: %s", errs.text)
		}
		bad := s.call("read", map[string]any{"process_id": id, "streams": "bogus"})
		if !bad.isError || bad.str("process_id") != id || !strings.Contains(bad.str("error"), "streams") {
			t.Errorf("streams=bogus: %s", bad.text)
		}
	})
}

// A read cut by max_output_bytes must leave next_seq at the first byte it
// did not return, so paging reassembles the output exactly.
//
// Spec: DESIGN Sequence numbers: "A read cut by max_output_bytes returns next_seq at the first byte it did not return".
func TestReadPagingLosesNothing(t *testing.T) {
	forEachProtocol(t, nil, func(t *testing.T, s *server) {
		for _, tty := range []bool{true, false} {
			r := s.exec(helper("bytes", "1000"), map[string]any{"tty": tty}).mustStatus(t, "completed")
			id := r.str("process_id")
			var all strings.Builder
			seq := 0.0
			for range 200 {
				p := s.call("read", map[string]any{"process_id": id, "since_seq": seq, "max_output_bytes": 64})
				all.WriteString(p.str("stdout"))
				if len(p.str("stdout")) > 64 {
					t.Fatalf("page of %d bytes, max 64", len(p.str("stdout")))
				}
				if p.num("next_seq") == seq {
					break
				}
				if p.m["truncated"] != true && p.num("next_seq") != r.num("next_seq") {
					t.Errorf("page ending early without truncated: %s", p.text)
				}
				seq = p.num("next_seq")
			}
			want := s.call("read", map[string]any{"process_id": id, "since_seq": 0}).str("stdout")
			if all.String() != want || len(want) != 1000 {
				t.Errorf("tty=%v: paged %d bytes, want the %d-byte output exactly", tty, all.Len(), len(want))
			}
		}
	})
}

// Spec: 0.4.0 Incremental Reads: "truncated is set to true and the read returns data from the earliest retained sequence onward."
func TestReadEviction(t *testing.T) {
	forEachProtocol(t, []string{"YIELDSHELL_MAX_BUFFER_BYTES=2000", "YIELDSHELL_MAX_OUTPUT_BYTES=1000"}, func(t *testing.T, s *server) {
		r := s.exec(helper("bytes", "5000"), map[string]any{"tty": false}).mustStatus(t, "completed")
		p := s.call("read", map[string]any{"process_id": r.str("process_id"), "since_seq": 0})
		if p.m["truncated"] != true || p.m["evicted"] != true {
			t.Errorf("reading evicted output: truncated, evicted = %v, %v", p.m["truncated"], p.m["evicted"])
		}
		if p.num("start_seq") != 3000 {
			t.Errorf("start_seq = %v, want 3000 (the oldest retained byte)", p.m["start_seq"])
		}
	})
}

// Spec: 0.4.0 Error Responses: "{\"process_id\": \"proc_abc123\", \"error\": \"Unknown process_id: proc_abc123\"}".
func TestUnknownProcess(t *testing.T) {
	forEachProtocol(t, nil, func(t *testing.T, s *server) {
		for _, tool := range []string{"read", "write", "wait", "stop"} {
			args := map[string]any{"process_id": "proc_nonexistent"}
			if tool == "write" {
				args["input"] = "x"
			}
			r := s.call(tool, args)
			if !r.isError || r.str("process_id") != "proc_nonexistent" || !strings.Contains(r.str("error"), "Unknown process_id") {
				t.Errorf("%s: %s", tool, r.text)
			}
			if tool == "write" && r.m["ok"] != false {
				t.Errorf("write: ok = %v", r.m["ok"])
			}
			if tool == "stop" && r.m["stopped"] != false {
				t.Errorf("stop: stopped = %v", r.m["stopped"])
			}
		}
	})
}
