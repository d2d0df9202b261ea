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

// TestCLIHelp: help and version go to stdout with exit 0, as for any
// command-line tool; yieldshell help [COMMAND] and COMMAND --help print a
// command's help; a bad flag is named as it was typed (issue 41 item 8).
func TestCLIHelp(t *testing.T) {
	for _, tc := range []struct {
		args     []string
		wantCode int
		stdout   string
		stderr   string
	}{
		{[]string{"--help"}, 0, "Environment variables:", ""},
		{[]string{"-h"}, 0, "Usage:", ""},
		{[]string{"help"}, 0, "yieldshell help [COMMAND]", ""},
		{[]string{"--version"}, 0, "yieldshell ", ""},
		{[]string{"help", "logs"}, 0, "yieldshell logs ID|NAME [-f]", ""},
		{[]string{"logs", "--help"}, 0, "yieldshell logs ID|NAME [-f]", ""},
		{[]string{"server", "-h"}, 0, "yieldshell server start|stop|status|run", ""},
		{[]string{"help", "nope"}, 2, "", `no command "nope"`},
		{[]string{"--bogus"}, 2, "", "unknown flag --bogus"},
		{[]string{"-bogus"}, 2, "", "unknown flag -bogus"},
		{[]string{"--http"}, 2, "", "flag needs an argument: --http"},
	} {
		var out, errOut bytes.Buffer
		code := run(tc.args, &out, &errOut)
		if code != tc.wantCode || !strings.Contains(out.String(), tc.stdout) || !strings.Contains(errOut.String(), tc.stderr) ||
			tc.wantCode == 0 && errOut.Len() > 0 {
			t.Errorf("yieldshell %q: exit %d (want %d)\nstdout: %.300s\nstderr: %s", tc.args, code, tc.wantCode, out.String(), errOut.String())
		}
	}
	var out, errOut bytes.Buffer
	run([]string{"--help"}, &out, &errOut)
	if !strings.Contains(out.String(), "ask_human") {
		t.Error("--help does not name ask_human among the default tools")
	}
}
