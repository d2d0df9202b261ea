package policy

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/yieldshell/yieldshell/internal/testdir"
)

// While a command regex is set, the environment overlay cannot choose what
// runs: each of these ran a program no regex saw (issue 30 item 7).
func TestRegexesCannotBeBypassedThroughTheEnvOverlay(t *testing.T) {
	allow := regexp.MustCompile(`^(ls|git status)$`)
	deny := regexp.MustCompile(`rm\s`)
	tests := []struct {
		name        string
		deny, allow *regexp.Regexp
		env         map[string]string
		rule        string // "" = allowed
		want        []string
	}{
		{"no regex: anything goes", nil, nil, map[string]string{"PATH": ".", "LD_PRELOAD": "/tmp/x.so"}, "", nil},
		{"harmless overlay", nil, allow, map[string]string{"NODE_ENV": "test", "RUST_LOG": "debug", "CI": "1"}, "", nil},
		{"BASH_ENV", nil, allow, map[string]string{"BASH_ENV": "/tmp/evil"}, "allow_command_regex",
			[]string{`"BASH_ENV"`, "not allowed by policy", "YIELDSHELL_ALLOW_COMMAND_REGEX", "Nothing was started"}},
		{"ENV", nil, allow, map[string]string{"ENV": "/tmp/evil"}, "allow_command_regex", []string{`"ENV"`}},
		{"PATH", nil, allow, map[string]string{"PATH": "/tmp/evil:/usr/bin"}, "allow_command_regex", []string{`"PATH"`}},
		{"PATH=. (with cwd)", nil, allow, map[string]string{"PATH": "."}, "allow_command_regex", []string{`"PATH"`}},
		{"Path, as Windows spells it", nil, allow, map[string]string{"Path": "."}, "allow_command_regex", []string{`"Path"`}},
		{"LD_PRELOAD", nil, allow, map[string]string{"LD_PRELOAD": "/tmp/x.so"}, "allow_command_regex", nil},
		{"LD_LIBRARY_PATH", nil, allow, map[string]string{"LD_LIBRARY_PATH": "/tmp"}, "allow_command_regex", nil},
		{"LD_AUDIT", nil, allow, map[string]string{"LD_AUDIT": "/tmp/x.so"}, "allow_command_regex", nil},
		{"DYLD_INSERT_LIBRARIES", nil, allow, map[string]string{"DYLD_INSERT_LIBRARIES": "/tmp/x.dylib"}, "allow_command_regex", nil},
		{"an exported bash function", nil, allow, map[string]string{"BASH_FUNC_ls%%": "() { rm -rf ~; }"}, "allow_command_regex", nil},
		{"SHELLOPTS with PS4", nil, allow, map[string]string{"SHELLOPTS": "xtrace", "PS4": "$(rm -rf ~)"}, "allow_command_regex",
			[]string{`"PS4", "SHELLOPTS"`}},
		{"ZDOTDIR", nil, allow, map[string]string{"ZDOTDIR": "/tmp"}, "allow_command_regex", nil},
		{"git's pager", nil, allow, map[string]string{"GIT_PAGER": "sh -c evil"}, "allow_command_regex", nil},
		{"git's config", nil, allow, map[string]string{"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "core.fsmonitor"}, "allow_command_regex", nil},
		{"NODE_OPTIONS", nil, allow, map[string]string{"NODE_OPTIONS": "--require /tmp/x.js"}, "allow_command_regex", nil},
		{"PYTHONSTARTUP", nil, allow, map[string]string{"PYTHONSTARTUP": "/tmp/x.py"}, "allow_command_regex", nil},
		{"HOME (start-up files)", nil, allow, map[string]string{"HOME": "/tmp"}, "allow_command_regex", nil},
		{"a deny-list alone is guarded too", deny, nil, map[string]string{"BASH_ENV": "/tmp/evil"}, "deny_command_regex",
			[]string{"YIELDSHELL_DENY_COMMAND_REGEX"}},
		{"a key that carries '='", nil, allow, map[string]string{"PATH=x": "y"}, "allow_command_regex", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &Config{Rules: Rules{DenyCommand: tt.deny, AllowCommand: tt.allow}}
			err := c.CheckEnv(tt.env)
			if tt.rule == "" {
				if err != nil {
					t.Fatalf("CheckEnv(%v) = %v", tt.env, err)
				}
				return
			}
			var r *Refusal
			if !errors.As(err, &r) || r.Rule != tt.rule {
				t.Fatalf("CheckEnv(%v) = %#v, want rule %s", tt.env, err, tt.rule)
			}
			var values []string
			for _, v := range tt.env {
				if len(v) > 3 { // the values never appear; short ones are ordinary words
					values = append(values, v)
				}
			}
			checkMessage(t, r.Message, tt.want, values)
		})
	}
}

// While a command regex is set, exec's shell must be a login shell of the
// system: any other program given "-c <command>" runs what no regex saw.
func TestRegexesCannotBeBypassedThroughTheShell(t *testing.T) {
	dir := testdir.New(t)
	list := filepath.Join(dir, "shells")
	bash := filepath.Join(dir, "bash")
	evil := filepath.Join(dir, "evil")
	link := filepath.Join(dir, "bash-link")
	for _, f := range []string{bash, evil} {
		if err := os.WriteFile(f, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	testdir.Symlink(t, bash, link)
	if err := os.WriteFile(list, []byte("# comment\n"+bash+"\n\nrelative/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	allow := regexp.MustCompile(`^ls$`)
	tests := []struct {
		name        string
		deny, allow *regexp.Regexp
		shell, list string
		rule        string
		defShell    string // the Config's Shell
	}{
		{"no regex: any shell", nil, nil, evil, list, "", ""},
		{"the default", nil, allow, "", list, "", ""},
		{"/bin/sh", nil, allow, "/bin/sh", list, "", ""},
		{"a listed shell", nil, allow, bash, list, "", ""},
		{"a link to a listed shell", nil, allow, link, list, "", ""},
		{"an unlisted program", nil, allow, evil, list, "allow_command_regex", ""},
		{"a deny-list alone is guarded too", regexp.MustCompile(`rm`), nil, evil, list, "deny_command_regex", ""},
		{"no list: only the default", nil, allow, bash, filepath.Join(dir, "missing"), "allow_command_regex", ""},
		{"the operator's default shell, unlisted", nil, allow, evil, list, "", evil},
		{"/bin/sh beside another default", nil, allow, "/bin/sh", list, "", bash},
		{"not the default: an unlisted program", nil, allow, evil, list, "allow_command_regex", bash},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &Config{Rules: Rules{DenyCommand: tt.deny, AllowCommand: tt.allow}, Shell: tt.defShell}
			err := c.checkShell(tt.shell, tt.list)
			if tt.rule == "" {
				if err != nil {
					t.Fatalf("checkShell(%q) = %v", tt.shell, err)
				}
				return
			}
			var r *Refusal
			if !errors.As(err, &r) || r.Rule != tt.rule {
				t.Fatalf("checkShell(%q) = %#v, want rule %s", tt.shell, err, tt.rule)
			}
			checkMessage(t, r.Message, []string{"not allowed by policy", "/etc/shells", "Nothing was started", "Omit shell"}, nil)
		})
	}
}
