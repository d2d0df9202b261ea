//go:build unix

package conformance

import (
	"encoding/json"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"
)

// Behaviours mcp-yieldshell 0.4.0's clients and tests rely on (issue 17).
// Each test names the behaviour it checks.

// ps counts every byte a process printed, a line still being written (no
// newline yet) included.
//
// Spec: issue 17: "ps entries' stdout_bytes stays 0 after a process printed 10 bytes."
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

// Refusals say what they are in the words 0.4.0's clients look for
// ("denied", "not allowed", "not under allowed roots"), inside sentences
// that name the rule and what to do instead.
//
// Spec: issue 17: "Keep today's clearer sentences and include those phrases."
func TestPolicyRefusalsCarryTheWordsClientsMatch(t *testing.T) {
	root := t.TempDir()
	s := start(t, "", "YIELDSHELL_DENY_COMMAND_REGEX=rm\\s+-rf", "YIELDSHELL_ALLOW_COMMAND_REGEX=^(git|rm)\\s", "YIELDSHELL_ALLOWED_CWDS="+root)
	for _, c := range []struct {
		command, cwd, want string
	}{
		{"rm -rf build", root, "denied by policy"},
		{"ls -la", root, "not allowed by policy"},
		{"git status", t.TempDir(), "not under allowed roots"},
	} {
		r := s.exec(c.command, map[string]any{"cwd": c.cwd})
		if !r.isError || r.str("status") != "failed_to_start" || !strings.Contains(r.str("error"), c.want) || !strings.Contains(r.str("error"), "Nothing was started") {
			t.Errorf("exec %q in %s: want %q in the refusal: %s", c.command, c.cwd, c.want, r.text)
		}
	}
}

// An invalid blocklist stops the server at start-up with the valid values
// listed, as 0.4.0's "Valid values" message did.
//
// Spec: issue 17: "an invalid blocklist value at start-up not \"Valid values\"."
func TestInvalidBlocklistListsValidValues(t *testing.T) {
	cmd := exec.Command(binPath)
	cmd.Env = append(os.Environ(), "MCP_YIELDSHELL_BLOCKED_SIDE_EFFECTS=DELETES_FILE,TELEPORT_COWS")
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "Valid values (case-sensitive): ") ||
		!strings.Contains(string(out), `"TELEPORT_COWS"`) || !strings.Contains(string(out), "MAKES_NETWORK_REQUESTS") {
		t.Errorf("start-up with an invalid blocklist: %v\n%s", err, out)
	}
}

// exec's side_effects items refer to one SideEffect definition, as 0.4.0's
// schema did, whose description says which categories are blocked by
// default; optional parameters accept null, as 0.4.0's did.
//
// Spec: issue 17: "0.4.0 referenced one SideEffect definition ($defs), and the description does not say which categories are blocked by default."
func TestExecSchemaDefinesSideEffectOnce(t *testing.T) {
	s := start(t, "")
	tools, err := s.cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var schema map[string]any
	for _, tool := range tools.Tools {
		if tool.Name == "exec" {
			b, _ := json.Marshal(tool.InputSchema)
			if err := json.Unmarshal(b, &schema); err != nil {
				t.Fatal(err)
			}
		}
	}
	effects := schema["properties"].(map[string]any)["side_effects"].(map[string]any)
	def, _ := schema["$defs"].(map[string]any)["SideEffect"].(map[string]any)
	if effects["type"] != "array" || effects["items"].(map[string]any)["$ref"] != "#/$defs/SideEffect" || def == nil {
		t.Fatalf("side_effects: %v; $defs: %v", effects, schema["$defs"])
	}
	enum := strs(def["enum"])
	if def["type"] != "string" || len(enum) != 21 || !slices.IsSorted(enum) || !slices.Contains(enum, "RUNS_INLINE_CODE") ||
		!strings.Contains(def["description"].(string), "Blocked by default: KILLS_AGENT_PROCESS, MODIFIES_OS_SETTINGS, MODIFIES_OS_USER_SETTINGS, MODIFIES_PROTECTED_FILES, RUNS_INLINE_CODE") {
		t.Errorf("SideEffect definition: %v", def)
	}
	if !slices.Equal(strs(schema["required"]), []string{"command", "side_effects"}) {
		t.Errorf("required: %v", schema["required"])
	}
	r := s.exec("echo hi", map[string]any{"cwd": nil, "name": nil, "yield_ms": nil, "env": nil})
	r.mustStatus(t, "completed")
}

// In PTY mode a descendant that leaves the command's session (setsid, as a
// daemon does) lives to write its output: the shell leads the terminal's
// session until the command is over, so the kernel's hang-up of the
// foreground group when the leader exits cannot catch the child between
// its fork and its setsid. 0.4.0's test_shutdown_kills_descendant_that_
// leaves_process_group and test_stop_and_timeout_kill_descendant_outside_
// group read the child's pid from its first line.
//
// Spec: issue 42 item 2: "output a command's descendants write before the command's leader exits is never lost".
func TestPTYSetsidChildWritesItsFirstLine(t *testing.T) {
	need(t, "setsid")
	s := start(t, "")
	for range 5 {
		r := s.exec(`setsid sh -c 'echo CHILD=$$; exec sleep 30'`, map[string]any{"yield_ms": 0, "tty": true})
		id := r.str("process_id")
		eventually(t, 10*time.Second, "the child's first line", func() bool {
			return strings.Contains(s.call("read", map[string]any{"process_id": id}).str("stdout"), "CHILD=")
		})
		s.stopQuietly(id)
	}
}
