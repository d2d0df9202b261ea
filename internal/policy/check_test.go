package policy

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/yieldshell/yieldshell/internal/testdir"
)

func TestCheckCommand(t *testing.T) {
	deny := regexp.MustCompile(`rm\s+-rf|shutdown`)
	allow := regexp.MustCompile(`^(git|go|rm) `)
	long := "shutdown now # " + strings.Repeat("x", 200)
	tests := []struct {
		name         string
		deny, allow  *regexp.Regexp
		command      string
		rule         string // "" = accepted
		want, absent []string
	}{
		{"no regexes", nil, nil, "rm -rf /", "", nil, nil},
		{"deny matches anywhere", deny, nil, "echo hi && rm  -rf /", "deny_command_regex",
			[]string{"denied", "deny_command_regex", "YIELDSHELL_DENY_COMMAND_REGEX", "Nothing was started", `"echo hi && rm  -rf /"`}, nil},
		{"deny no match", deny, nil, "ls -la", "", nil, nil},
		{"deny before allow", deny, allow, "rm -rf build", "deny_command_regex", nil, nil},
		{"allow match", deny, allow, "git status", "", nil, nil},
		{"allow no match", deny, allow, "make test", "allow_command_regex",
			[]string{"not allowed", "allow_command_regex", "YIELDSHELL_ALLOW_COMMAND_REGEX", "only"}, nil},
		{"allow is a search", nil, regexp.MustCompile(`git`), "cd x && git log", "", nil, nil},
		{"long command echoed as a short prefix", deny, nil, long, "deny_command_regex",
			[]string{`starting "shutdown now # xxxxxxxxx`}, []string{strings.Repeat("x", 41)}},
		{"prefix cut on a rune boundary", deny, nil, "shutdown " + strings.Repeat("é", 60), "deny_command_regex",
			[]string{`starting "shutdown ` + strings.Repeat("é", 31) + `"`}, nil},
		{"secret redacted before the prefix is cut", deny, nil, "shutdown -H 'Authorization: tok-1234567890abcdef'", "deny_command_regex",
			[]string{`Authorization: [REDACTED`}, []string{"tok-1234"}},
	}
	secrets := []Secret{{Name: "API_TOKEN", Value: "tok-1234567890abcdef"}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &Config{Rules: Rules{DenyCommand: tt.deny, AllowCommand: tt.allow}}
			err := c.CheckCommand(tt.command, secrets...)
			if tt.rule == "" {
				if err != nil {
					t.Fatalf("CheckCommand(%q) = %v", tt.command, err)
				}
				return
			}
			var r *Refusal
			if !errors.As(err, &r) || r.Rule != tt.rule {
				t.Fatalf("CheckCommand(%q) = %#v, want rule %s", tt.command, err, tt.rule)
			}
			checkMessage(t, r.Message, tt.want, tt.absent)
		})
	}
}

func TestCheckProcessLimit(t *testing.T) {
	c := &Config{Limits: Limits{Processes: 2}}
	if err := c.CheckProcessLimit(1); err != nil {
		t.Errorf("CheckProcessLimit(1) = %v", err)
	}
	var r *Refusal
	if err := c.CheckProcessLimit(2); !errors.As(err, &r) || r.Rule != "max_processes" ||
		!strings.Contains(r.Message, "YIELDSHELL_MAX_PROCESSES") {
		t.Errorf("CheckProcessLimit(2) = %v", err)
	}
}

func TestResolveCwd(t *testing.T) {
	base := tempDir(t)
	mk := func(parts ...string) string {
		p := filepath.Join(append([]string{base}, parts...)...)
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	root := mk("a")
	work := mk("a", "work")
	lookalike := mk("ab")
	outside := mk("outside")
	realRoot := mk("real")
	mk("real", "sub")
	link := func(target, name string) string {
		p := filepath.Join(base, name)
		testdir.Symlink(t, target, p)
		return p
	}
	link(outside, "a/escape")        // inside the root, pointing outside
	link(work, "a/alias")            // inside the root, pointing inside
	rootLink := link(realRoot, "rl") // a root that is itself a symlink
	file := filepath.Join(work, "file.txt")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}

	c := mustLoad(t, map[string]string{
		envDefaultCwd:  work,
		envAllowedCwds: root + string(os.PathListSeparator) + rootLink,
	}, base)
	open := &Config{Cwd: Cwds{Default: work}}

	tests := []struct {
		name string
		c    *Config
		cwd  string
		want string // resolved path, or "" for a refusal
		msg  []string
	}{
		{"empty means default", c, "", work, nil},
		{"relative against DefaultCwd", c, ".", work, nil},
		{"relative parent inside root", c, "..", root, nil},
		{"the root itself", c, root, root, nil},
		{"symlink inside root to inside", c, filepath.Join(root, "alias"), work, nil},
		{"dot-dot traversal out of the root", c, "../../outside", "", []string{"not under allowed roots", outside}},
		{"absolute traversal", c, root + "/work/../../outside", "", []string{"not under allowed roots"}},
		{"symlink inside root pointing outside", c, filepath.Join(root, "escape"), "", []string{"not under allowed roots", "resolved to"}},
		{"prefix look-alike", c, lookalike, "", []string{"not under allowed roots", root}},
		{"root given through its symlink", c, rootLink, realRoot, nil},
		{"below a symlinked root", c, filepath.Join(rootLink, "sub"), filepath.Join(realRoot, "sub"), nil},
		{"below the real path of a symlinked root", c, filepath.Join(realRoot, "sub"), filepath.Join(realRoot, "sub"), nil},
		{"missing inside root", c, "nope", "", []string{"does not exist", filepath.Join(work, "nope")}},
		{"missing outside root reads as outside", c, filepath.Join(outside, "nope"), "", []string{"not under allowed roots"}},
		{"a file", c, file, "", []string{"is not a directory"}},
		{"below a file", c, filepath.Join(file, "x"), "", []string{"does not exist"}},
		{"no roots: anywhere", open, outside, outside, nil},
		{"no roots: missing", open, filepath.Join(outside, "nope"), "", []string{"does not exist"}},
		{"no roots: a file", open, "file.txt", "", []string{"is not a directory"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.c.ResolveCwd(tt.cwd)
			if tt.want != "" {
				if err != nil || got != tt.want {
					t.Fatalf("ResolveCwd(%q) = %q, %v; want %q", tt.cwd, got, err, tt.want)
				}
				return
			}
			var r *Refusal
			if !errors.As(err, &r) || r.Rule != "cwd" {
				t.Fatalf("ResolveCwd(%q) = %q, %#v; want a cwd Refusal", tt.cwd, got, err)
			}
			for _, w := range append(tt.msg, "Nothing was started") {
				if !strings.Contains(r.Message, w) {
					t.Errorf("message %q does not contain %q", r.Message, w)
				}
			}
		})
	}
}

func TestWithin(t *testing.T) {
	tests := []struct {
		path  string
		roots []string
		want  bool
	}{
		{"/tmp", []string{"/tmp"}, true},
		{"/tmp/x/y", []string{"/tmp"}, true},
		{"/tmpfoo", []string{"/tmp"}, false},
		{"/tmp-private/x", []string{"/tmp"}, false},
		{"/", []string{"/tmp"}, false},
		{"/tmp/..foo", []string{"/tmp"}, true}, // a name starting with "..", not a parent step
		{"/anything", []string{"/"}, true},
		{"/b/c", []string{"/a", "/b"}, true},
	}
	for _, tt := range tests {
		if got := within(tt.path, tt.roots); got != tt.want {
			t.Errorf("within(%q, %q) = %v, want %v", tt.path, tt.roots, got, tt.want)
		}
	}
}

// checkMessage checks that a refusal message has every wanted phrase and
// none of the absent ones.
func checkMessage(t *testing.T, msg string, want, absent []string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(msg, w) {
			t.Errorf("message %q does not contain %q", msg, w)
		}
	}
	for _, w := range absent {
		if strings.Contains(msg, w) {
			t.Errorf("message %q contains %q", msg, w)
		}
	}
}
