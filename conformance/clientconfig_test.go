//go:build unix

package conformance

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestREADMEClientCommands runs the `claude mcp add` and `codex mcp add`
// lines of README.md and docs/clients.md as a user pasting them would
// (with this build in place of the example path), in a fresh home, and
// checks that the client registered the server with its variables and,
// for Claude Code, that it connects. The README's line used to put the
// server's name after -e, which takes every value up to -- and swallowed
// it (issue 41 item 9). Each client skips by name when not installed.
func TestREADMEClientCommands(t *testing.T) {
	line := regexp.MustCompile(`(?m)^(claude|codex) mcp add .*$`)
	var lines []string
	for _, doc := range []string{"../README.md", "../docs/clients.md"} {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, line.FindAllString(string(b), -1)...)
	}
	if len(lines) < 3 {
		t.Fatalf("found only %d client command lines: %q", len(lines), lines)
	}
	for _, l := range lines {
		t.Run(l, func(t *testing.T) {
			client := strings.Fields(l)[0]
			if _, err := exec.LookPath(client); err != nil {
				t.Skipf("%s is not installed", client)
			}
			home := t.TempDir()
			if err := os.Mkdir(filepath.Join(home, ".codex"), 0o700); err != nil {
				t.Fatal(err)
			}
			l = strings.NewReplacer("/home/me/bin/yieldshell", binPath, "/path/to/yieldshell", binPath,
				"/home/me/projects", home).Replace(l)
			run := func(args ...string) string {
				t.Helper()
				cmd := exec.CommandContext(t.Context(), args[0], args[1:]...)
				cmd.Dir = home
				cmd.Env = append(os.Environ(), "HOME="+home, "CODEX_HOME="+filepath.Join(home, ".codex"))
				cmd.WaitDelay = 5 * time.Second
				out, err := cmd.CombinedOutput()
				if err != nil {
					t.Fatalf("%q: %v\n%s", args, err, out)
				}
				return string(out)
			}
			run("sh", "-c", l)
			var config string
			for _, f := range []string{".claude.json", ".codex/config.toml"} {
				if b, err := os.ReadFile(filepath.Join(home, f)); err == nil {
					config += string(b)
				}
			}
			if !strings.Contains(config, binPath) || !strings.Contains(config, "yieldshell") {
				t.Fatalf("the config does not name the server:\n%s", config)
			}
			if _, kv, ok := strings.Cut(l, " -e "); ok {
				if name, _, _ := strings.Cut(strings.Fields(kv)[0], "="); !strings.Contains(config, name) {
					t.Errorf("the config lacks %s:\n%s", name, config)
				}
			}
			if client == "claude" {
				if out := run("claude", "mcp", "list"); !strings.Contains(out, "Connected") {
					t.Errorf("claude mcp list:\n%s", out)
				}
			}
		})
	}
}
