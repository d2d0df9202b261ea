//go:build unix

package conformance

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// With an anchored allow-list, exec's shell and env overlay cannot run a
// program the allow-list never saw: each of these ran a planted script
// (issue 30 item 7). Refused, nothing runs; the allowed command itself
// still runs, with a harmless overlay and a listed shell.
// Spec: issue 30 item 7: "regexes apply to what actually runs (shell, the environment overlay) or refuse an overlay that changes which program runs while a regex is set".
func TestRegexesApplyToWhatRuns(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	script := "#!/bin/sh\necho planted > " + marker + "\n"
	planted := filepath.Join(dir, "planted.sh")
	for _, f := range []string{planted, filepath.Join(dir, "ls")} {
		if err := os.WriteFile(f, []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	s := start(t, "", `YIELDSHELL_ALLOW_COMMAND_REGEX=^(ls|echo ok)$`)
	for _, c := range []struct {
		name    string
		command string
		args    map[string]any
		want    string // in the refusal
	}{
		{"shell", "echo ok", map[string]any{"shell": planted}, "shell"},
		{"BASH_ENV", "echo ok", map[string]any{"shell": "bash", "env": map[string]string{"BASH_ENV": planted}}, `"BASH_ENV"`},
		// The default shell is bash where installed, which reads BASH_ENV.
		{"BASH_ENV under the default shell", "echo ok", map[string]any{"env": map[string]string{"BASH_ENV": planted}}, `"BASH_ENV"`},
		// ... and imports exported functions: this one would replace echo.
		{"an exported function under the default shell", "echo ok", map[string]any{"env": map[string]string{"BASH_FUNC_echo%%": "() { " + planted + "; }"}}, `"BASH_FUNC_echo%%"`},
		{"PATH=. with cwd", "ls", map[string]any{"cwd": dir, "env": map[string]string{"PATH": "."}}, `"PATH"`},
		{"PATH", "ls", map[string]any{"env": map[string]string{"PATH": dir}}, `"PATH"`},
		{"ENV with an interactive sh", "echo ok", map[string]any{"shell": "sh", "env": map[string]string{"ENV": planted}}, `"ENV"`},
		{"LD_PRELOAD", "ls", map[string]any{"env": map[string]string{"LD_PRELOAD": planted}}, `"LD_PRELOAD"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := s.exec(c.command, c.args).mustStatus(t, "failed_to_start")
			for _, w := range []string{"not allowed by policy", "allow_command_regex", "Nothing was started", c.want} {
				if !strings.Contains(r.str("error"), w) {
					t.Errorf("the refusal does not say %q: %s", w, r.text)
				}
			}
			if b, err := os.ReadFile(marker); err == nil {
				t.Fatalf("the planted script ran (%q)", b)
			}
		})
	}
	r := s.exec("echo ok", map[string]any{"shell": bash, "env": map[string]string{"NODE_ENV": "test"}}).mustStatus(t, "completed")
	if got := strings.TrimSpace(r.str("stdout")); got != "ok" {
		t.Errorf("the allowed command printed %q", got)
	}
}
