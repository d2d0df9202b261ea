//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestCLI runs the call and tools subcommands in process, as a person would
// from a shell, and checks answers and exit codes.
func TestCLI(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, tc := range []struct {
		args     []string
		wantCode int
		stdout   string // a substring of stdout
		stderr   string // a substring of stderr
	}{
		{[]string{"call", "exec", `{"command": "echo hi; exit 3", "side_effects": ["NONE"]}`}, 0, `"stdout": "hi\n"`, ""},
		{[]string{"call", "ps"}, 0, `"processes"`, ""},
		{[]string{"call", "read", `{"process_id": "proc_nope"}`}, 1, "Unknown process_id", ""},
		{[]string{"call", "exec", `{"command": "true"}`}, 1, "", ""}, // missing side_effects: a tool error
		{[]string{"call", "nope", `{}`}, 2, "", "unknown tool"},
		{[]string{"call", "exec", `not json`}, 2, "", "must be a JSON object"},
		{[]string{"call"}, 2, "", "usage: yieldshell call"},
		{[]string{"tools"}, 0, "exec — Run a shell command", ""},
		{[]string{"tools", "--json"}, 0, `"outputSchema"`, ""},
		{[]string{"bogus"}, 2, "", `unexpected argument "bogus"`},
		{[]string{"--http", "9", "tools"}, 2, "", "cannot be combined"},
	} {
		var out, errOut bytes.Buffer
		code := run(tc.args, &out, &errOut)
		if code != tc.wantCode || !strings.Contains(out.String(), tc.stdout) || !strings.Contains(errOut.String(), tc.stderr) {
			t.Errorf("yieldshell %q: exit %d (want %d)\nstdout: %s\nstderr: %s", tc.args, code, tc.wantCode, out.String(), errOut.String())
		}
	}

	// The answer is the tool's JSON, for scripts.
	var out, errOut bytes.Buffer
	if code := run([]string{"call", "exec", `{"command": "printf abc", "side_effects": ["NONE"], "tty": false}`}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	var ans map[string]any
	if err := json.Unmarshal(out.Bytes(), &ans); err != nil || ans["stdout"] != "abc" || ans["status"] != "completed" {
		t.Errorf("answer %s: %v", out.String(), err)
	}
}
