package conformance

import (
	"strings"
	"testing"
)

// TestArgumentErrorsPlain: arguments that do not fit a tool's input
// schema are answered as tool errors in plain words, with the nearest
// valid name for a misspelling and a valid call to copy, never the
// validator's jargon; an optional argument sent as null counts as not
// sent (issue 41 item 6).
func TestArgumentErrorsPlain(t *testing.T) {
	forEachProtocol(t, nil, func(t *testing.T, s *server) {
		for _, tc := range []struct {
			tool string
			args map[string]any
			want []string
		}{
			{"exec", map[string]any{"command": "ls"}, []string{"exec needs side_effects", `"side_effects":["NONE"]`}},
			{"exec", map[string]any{"command": "ls", "side_effects": []string{"none"}}, []string{`side_effects: not one of its values; did you mean "NONE"?`}},
			{"exec", map[string]any{"command": "ls", "side_effects": "NONE"}, []string{"side_effects must be an array (a list), not a string, such as [\"NONE\"]"}},
			{"read", map[string]any{"process_id": "proc_1", "since_sq": 1}, []string{`read takes no argument by that name (did you mean "since_seq"?)`}},
		} {
			r := s.call(tc.tool, tc.args)
			if !r.isError {
				t.Errorf("%s %v: not an error: %s", tc.tool, tc.args, r.text)
				continue
			}
			for _, w := range tc.want {
				if !strings.Contains(r.text, w) {
					t.Errorf("%s %v: %q lacks %q", tc.tool, tc.args, r.text, w)
				}
			}
			for _, jargon := range []string{"validating", "root", "/properties/", "does not equal any of", "MODIFIES_OS_SETTINGS", `"none"`, "since_sq"} {
				if strings.Contains(r.text, jargon) {
					t.Errorf("%s %v: %q says %q", tc.tool, tc.args, r.text, jargon)
				}
			}
		}
		r := s.call("exec", map[string]any{"command": "echo hi", "side_effects": []string{"NONE"}, "cwd": nil, "yield_ms": nil})
		if r.isError || strings.TrimSpace(r.str("stdout")) != "hi" {
			t.Errorf("exec with null optional arguments: %s", r.text)
		}
	})
}
