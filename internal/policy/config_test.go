package policy

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/yieldshell/yieldshell/internal/testdir"
)

// envOf returns a getenv over m.
func envOf(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// tempDir returns a fresh directory with symlinks resolved, so tests can
// compare it with what Load and ResolveCwd return.
func tempDir(t testing.TB) string { return testdir.New(t) }

func mustLoad(t *testing.T, m map[string]string, cwd string) *Config {
	t.Helper()
	c, err := Load(envOf(m), cwd)
	if err != nil {
		t.Fatalf("Load(%v): %v", m, err)
	}
	return c
}

func TestLoadDefaults(t *testing.T) {
	dir := tempDir(t)
	c := mustLoad(t, nil, dir)
	want := Config{
		Cwd:    Cwds{Default: dir},
		Limits: Limits{OutputBytes: 20000, BufferBytes: 256 << 10, Processes: 50},
		Times:  Times{DefaultYield: 5 * time.Second, MaxYield: 300 * time.Second, DefaultTimeout: 0, TimeoutGrace: 2 * time.Second},
		Rules:  Rules{Blocked: DefaultBlocked()},
		TTY:    true,
	}
	got := *c
	if got.Rules.RedactEnv == nil || got.Rules.RedactEnv.String() != `TOKEN|KEY|SECRET|PASSWORD` {
		t.Errorf("RedactEnv = %v, want the default", got.Rules.RedactEnv)
	}
	got.Rules.RedactEnv = nil
	if got.Cwd.Default != want.Cwd.Default || got.Cwd.Allowed != nil || got.Limits.OutputBytes != want.Limits.OutputBytes ||
		got.Limits.BufferBytes != want.Limits.BufferBytes || got.Limits.Processes != want.Limits.Processes ||
		got.Times.DefaultYield != want.Times.DefaultYield || got.Times.MaxYield != want.Times.MaxYield ||
		got.Times.DefaultTimeout != want.Times.DefaultTimeout || got.Times.TimeoutGrace != want.Times.TimeoutGrace || got.Rules.DenyCommand != nil || got.Rules.AllowCommand != nil ||
		!slices.Equal(got.Rules.Blocked, want.Rules.Blocked) || got.TTY != want.TTY {
		t.Errorf("Load defaults:\n got %+v\nwant %+v", got, want)
	}
}

// Blank values mean the default, for every variable.
func TestLoadBlankMeansDefault(t *testing.T) {
	dir := tempDir(t)
	m := map[string]string{}
	for _, v := range Vars() {
		m[v.Name] = " \t "
	}
	c := mustLoad(t, m, dir)
	if c.Cwd.Default != dir || c.Limits.OutputBytes != 20000 || c.Limits.Processes != 50 || !c.TTY ||
		c.Rules.DenyCommand != nil || c.Rules.RedactEnv.String() != defaultRedactEnv ||
		!slices.Equal(c.Rules.Blocked, DefaultBlocked()) {
		t.Errorf("blank values did not give defaults: %+v", c)
	}
}

// TestLoadResolvesLinks: directories given through symbolic links are
// stored as their real paths, and roots are split, trimmed and deduplicated.
func TestLoadResolvesLinks(t *testing.T) {
	dir := tempDir(t)
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	testdir.Symlink(t, sub, link)
	if c := mustLoad(t, map[string]string{envDefaultCwd: link}, dir); c.Cwd.Default != sub {
		t.Errorf("default cwd given through a link = %q, want %q", c.Cwd.Default, sub)
	}
	sep := string(os.PathListSeparator)
	c := mustLoad(t, map[string]string{envAllowedCwds: sep + link + sep + sep + dir + sep + " sub " + sep}, dir)
	if want := []string{sub, dir}; !slices.Equal(c.Cwd.Allowed, want) {
		t.Errorf("allowed cwds = %q, want %q", c.Cwd.Allowed, want)
	}
}

func TestLoadValues(t *testing.T) {
	dir := tempDir(t)
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		env   map[string]string
		check func(*Config) bool
	}{
		{"default cwd absolute", map[string]string{envDefaultCwd: sub},
			func(c *Config) bool { return c.Cwd.Default == sub }},
		{"default cwd relative to server cwd", map[string]string{envDefaultCwd: "sub"},
			func(c *Config) bool { return c.Cwd.Default == sub }},
		{"max output", map[string]string{envMaxOutputBytes: " 4096 "},
			func(c *Config) bool { return c.Limits.OutputBytes == 4096 && c.Limits.BufferBytes == 256<<10 }},
		{"max output above buffer default raises buffer", map[string]string{envMaxOutputBytes: "2000000"},
			func(c *Config) bool { return c.Limits.BufferBytes == 2000000 }},
		{"max buffer", map[string]string{envMaxBufferBytes: "65536"},
			func(c *Config) bool { return c.Limits.BufferBytes == 65536 }},
		{"max buffer equal to output", map[string]string{envMaxBufferBytes: "100", envMaxOutputBytes: "100"},
			func(c *Config) bool { return c.Limits.BufferBytes == 100 && c.Limits.OutputBytes == 100 }},
		{"max processes", map[string]string{envMaxProcesses: "3"},
			func(c *Config) bool { return c.Limits.Processes == 3 }},
		{"python-style digit separators", map[string]string{envMaxProcesses: "1_000"},
			func(c *Config) bool { return c.Limits.Processes == 1000 }},
		{"plus sign", map[string]string{envMaxProcesses: "+7"},
			func(c *Config) bool { return c.Limits.Processes == 7 }},
		{"default yield", map[string]string{envDefaultYieldMs: "0"},
			func(c *Config) bool { return c.Times.DefaultYield == 0 }},
		{"max yield", map[string]string{envMaxYieldMs: "60000"},
			func(c *Config) bool { return c.Times.MaxYield == time.Minute && c.Times.DefaultYield == 5*time.Second }},
		{"max yield below default lowers unset default", map[string]string{envMaxYieldMs: "1000"},
			func(c *Config) bool { return c.Times.MaxYield == time.Second && c.Times.DefaultYield == time.Second }},
		{"default timeout", map[string]string{envDefaultTimeoutMs: "300000"},
			func(c *Config) bool { return c.Times.DefaultTimeout == 5*time.Minute }},
		{"timeout grace", map[string]string{envTimeoutGraceMs: "250"},
			func(c *Config) bool { return c.Times.TimeoutGrace == 250*time.Millisecond }},
		{"deny regex", map[string]string{envDenyCommand: `rm\s+-rf`},
			func(c *Config) bool { return c.Rules.DenyCommand.MatchString("rm  -rf /") }},
		{"allow regex keeps inner spaces", map[string]string{envAllowCommand: "^git "},
			func(c *Config) bool { return c.Rules.AllowCommand.String() == "^git " }},
		{"redact regex", map[string]string{envRedactEnv: "^MY_"},
			func(c *Config) bool { return c.Rules.RedactEnv.String() == "^MY_" }},
		{"tty off", map[string]string{envTTY: "off"}, func(c *Config) bool { return !c.TTY }},
		{"tty 0", map[string]string{envTTY: "0"}, func(c *Config) bool { return !c.TTY }},
		{"tty FALSE", map[string]string{envTTY: "FALSE"}, func(c *Config) bool { return !c.TTY }},
		{"tty no", map[string]string{envTTY: "no"}, func(c *Config) bool { return !c.TTY }},
		{"tty yes", map[string]string{envTTY: "Yes"}, func(c *Config) bool { return c.TTY }},
		{"tty 1", map[string]string{envTTY: "1"}, func(c *Config) bool { return c.TTY }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := mustLoad(t, tt.env, dir)
			if !tt.check(c) {
				t.Errorf("unexpected config: %+v", c)
			}
		})
	}
}

func TestLoadBlocked(t *testing.T) {
	dir := tempDir(t)
	tests := []struct {
		value string
		want  []SideEffect
	}{
		{"", DefaultBlocked()},
		{"   ", DefaultBlocked()},
		{"DELETES_FILES", []SideEffect{DeletesFiles}},
		{"\tDELETES_FILES\t, RUNS_INLINE_CODE ", []SideEffect{DeletesFiles, RunsInlineCode}},
		{",,DELETES_FILES, ,,", []SideEffect{DeletesFiles}},
		{",", []SideEffect{}},
		{", ,", []SideEffect{}},
		{"MODIFIES_OS_SETTINGS", []SideEffect{ModifiesOSSettings}}, // replaces, not merges
		{"RUNS_INLINE_CODE,DELETES_FILES,RUNS_INLINE_CODE", []SideEffect{DeletesFiles, RunsInlineCode}},
		{"NONE", []SideEffect{None}},
	}
	for _, tt := range tests {
		t.Run(tt.value, func(t *testing.T) {
			c := mustLoad(t, map[string]string{envBlocked: tt.value}, dir)
			if !slices.Equal(c.Rules.Blocked, tt.want) {
				t.Errorf("Blocked = %v, want %v", c.Rules.Blocked, tt.want)
			}
		})
	}
}

func TestLoadInvalid(t *testing.T) {
	dir := tempDir(t)
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing")
	sep := string(os.PathListSeparator)
	tests := []struct {
		name, variable, value string
		want                  []string // substrings of the error besides variable and value
	}{
		{"default cwd missing", envDefaultCwd, missing, []string{"does not exist"}},
		{"default cwd file", envDefaultCwd, file, []string{"not a directory"}},
		{"allowed root missing", envAllowedCwds, dir + sep + missing, []string{"root", "does not exist"}},
		{"allowed root file", envAllowedCwds, file, []string{"not a directory"}},
		{"allowed cwds only separators", envAllowedCwds, sep + sep, []string{"names no directory"}},
		{"max output not a number", envMaxOutputBytes, "lots", []string{"not a whole number", "at least 1"}},
		{"max output zero", envMaxOutputBytes, "0", []string{"at least 1"}},
		{"max output negative", envMaxOutputBytes, "-5", []string{"at least 1"}},
		{"max output float", envMaxOutputBytes, "1.5", []string{"not a whole number"}},
		{"max output overflow", envMaxOutputBytes, "99999999999999999999999", []string{"out of range"}},
		{"bad separators", envMaxOutputBytes, "1__0", []string{"not a whole number"}},
		{"max buffer zero", envMaxBufferBytes, "0", []string{"at least 1"}},
		{"max buffer below output", envMaxBufferBytes, "100", []string{"less than", envMaxOutputBytes}},
		{"max processes zero", envMaxProcesses, "0", []string{"at least 1"}},
		{"max processes hex", envMaxProcesses, "0x10", []string{"not a whole number"}},
		{"default yield negative", envDefaultYieldMs, "-1", []string{"at least 0"}},
		{"default yield above max", envDefaultYieldMs, "400000", []string{"exceeds", envMaxYieldMs}},
		{"max yield negative", envMaxYieldMs, "-1", []string{"at least 0"}},
		{"default timeout negative", envDefaultTimeoutMs, "-100", []string{"at least 0"}},
		{"default timeout text", envDefaultTimeoutMs, "5s", []string{"not a whole number"}},
		{"deny look-ahead", envDenyCommand, `rm(?= -rf)`, []string{"RE2", "look-ahead", "(?="}},
		{"deny negative look-ahead", envDenyCommand, `^(?!git)`, []string{"RE2", "negative look-ahead"}},
		{"allow look-behind", envAllowCommand, `(?<=x)y`, []string{"RE2", "look-behind"}},
		{"allow back-reference", envAllowCommand, `(a)\1`, []string{"RE2", `back-references like \1`}},
		{"allow atomic group", envAllowCommand, `(?>a)`, []string{"RE2", "atomic"}},
		{"allow possessive", envAllowCommand, `a++`, []string{"RE2", "possessive"}},
		{"redact unbalanced", envRedactEnv, `TOKEN(`, []string{"RE2", "missing closing )"}},
		{"tty maybe", envTTY, "maybe", []string{"true", "false"}},
		{"blocked lower case", envBlocked, "deletes_files",
			[]string{"case-sensitive", `did you mean "DELETES_FILES"`, "RUNS_INLINE_CODE"}},
		{"blocked typo", envBlocked, "DELETES_FILE, TELEPORT_COWS",
			[]string{`"DELETES_FILE"`, `"TELEPORT_COWS"`, "Valid values", strings.Join(SideEffectNames(), ", ")}},
		{"blocked old name os", envBlocked, "BREAKS_OPERATING_SYSTEM", []string{`"BREAKS_OPERATING_SYSTEM"`, "MODIFIES_OS_SETTINGS"}},
		{"blocked old name exec", envBlocked, "GENERATES_EXECUTABLE_CONTENT", []string{`"GENERATES_EXECUTABLE_CONTENT"`}},
		{"blocked old name user", envBlocked, "BREAKS_OS_USER_SETTINGS", []string{`"BREAKS_OS_USER_SETTINGS"`}},
		{"blocked old name deps", envBlocked, "INSTALLS_DEPENDENCIES", []string{`"INSTALLS_DEPENDENCIES"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Load(envOf(map[string]string{tt.variable: tt.value}), dir)
			if err == nil {
				t.Fatalf("Load(%s=%q) = %+v, want an error", tt.variable, tt.value, c)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, "loading configuration: ") {
				t.Errorf("error does not start with the operation: %q", msg)
			}
			if !strings.Contains(msg, fmt.Sprintf("%s=%q", tt.variable, tt.value)) {
				t.Errorf("error %q does not name the variable and its value", msg)
			}
			for _, w := range tt.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q does not mention %q", msg, w)
				}
			}
		})
	}
}

// All problems are reported together, one per line.
func TestLoadReportsEveryProblem(t *testing.T) {
	_, err := Load(envOf(map[string]string{
		envMaxProcesses: "0",
		envDenyCommand:  "(?=x)",
		envBlocked:      "nope",
		envTTY:          "perhaps",
	}), tempDir(t))
	if err == nil {
		t.Fatal("want an error")
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, "loading configuration: 4 problems:") {
		t.Errorf("error = %q", msg)
	}
	for _, v := range []string{envMaxProcesses, envDenyCommand, envBlocked, envTTY} {
		if !strings.Contains(msg, v) {
			t.Errorf("error %q does not name %s", msg, v)
		}
	}
}

func TestLoadReadsEachVariableOnce(t *testing.T) {
	counts := map[string]int{}
	getenv := func(k string) string { counts[k]++; return " " }
	if _, err := Load(getenv, tempDir(t)); err != nil {
		t.Fatal(err)
	}
	for _, v := range Vars() {
		if counts[v.Name] != 1 {
			t.Errorf("%s read %d times, want once", v.Name, counts[v.Name])
		}
	}
	for k := range counts {
		if !slices.ContainsFunc(Vars(), func(v Var) bool { return v.Name == k }) {
			t.Errorf("Load read %s, which Vars does not document", k)
		}
	}
}

func TestVars(t *testing.T) {
	vars := Vars()
	seen := map[string]bool{}
	for _, v := range vars {
		if seen[v.Name] {
			t.Errorf("%s listed twice", v.Name)
		}
		seen[v.Name] = true
		if v.Default == "" || v.Help == "" || strings.Contains(v.Help, "\n") {
			t.Errorf("%s: want a default and a one-line help, got %+v", v.Name, v)
		}
	}
	if len(vars) != 28 || vars[0].Name != envDefaultCwd || vars[10].Name != envBlocked {
		t.Errorf("unexpected order: %v", vars)
	}
}

func TestWarnings(t *testing.T) {
	dir := tempDir(t)
	root := filepath.Join(dir, "root")
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	c := mustLoad(t, map[string]string{envAllowedCwds: root}, dir)
	if w := c.Warnings(); len(w) != 1 || !strings.Contains(w[0], envDefaultCwd) {
		t.Errorf("Warnings() = %q, want one about the default cwd", w)
	}
	c = mustLoad(t, map[string]string{envAllowedCwds: dir}, root)
	if w := c.Warnings(); len(w) != 0 {
		t.Errorf("Warnings() = %q, want none", w)
	}
}

func TestLoadLongRunningSettings(t *testing.T) {
	dir := tempDir(t)
	c := mustLoad(t, nil, dir)
	if c.Log.Dir != "" || c.Log.MaxBytes != defaultLogMaxBytes || c.Times.PurgeAfter != time.Hour || c.Toolset != ToolsetDefault {
		t.Errorf("defaults: %+v", c)
	}
	c = mustLoad(t, map[string]string{envLogDir: "logs", envLogMaxBytes: "8192", envPurgeAfterMs: "0", envToolset: "Shell-Yeah"}, dir)
	if c.Log.Dir != filepath.Join(dir, "logs") || c.Log.MaxBytes != 8192 || c.Times.PurgeAfter != 0 || c.Toolset != ToolsetShellYeah {
		t.Errorf("values: %+v", c)
	}
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []map[string]string{
		{envToolset: "both"}, {envLogMaxBytes: "100"}, {envPurgeAfterMs: "-1"}, {envLogDir: file},
	} {
		if _, err := Load(func(k string) string { return bad[k] }, dir); err == nil {
			t.Errorf("Load(%v) accepted it", bad)
		}
	}
}

// YIELDSHELL_ASK lifts exactly the askable part of a rule for one call.
func TestWaive(t *testing.T) {
	dir := tempDir(t)
	c, err := Load(envOf(map[string]string{"YIELDSHELL_ASK": "1", "YIELDSHELL_DENY_COMMAND_REGEX": "rm -rf",
		"YIELDSHELL_ALLOW_COMMAND_REGEX": "^echo|^rm", "YIELDSHELL_ALLOWED_CWDS": dir}), dir)
	if err != nil {
		t.Fatal(err)
	}
	if !c.Rules.Ask {
		t.Fatal("YIELDSHELL_ASK=1 did not set Ask")
	}
	for _, tc := range []struct {
		err      error
		askable  bool
		rule     string
		waivedOK bool
	}{
		{c.CheckSideEffects([]string{"RUNS_INLINE_CODE"}), true, "side_effects", c.Waive("side_effects").CheckSideEffects([]string{"RUNS_INLINE_CODE"}) == nil},
		{c.CheckSideEffects([]string{"NOPE"}), false, "side_effects", c.Waive("side_effects").CheckSideEffects([]string{"NOPE"}) == nil},
		{c.CheckCommand("rm -rf x"), true, "deny_command_regex", c.Waive("deny_command_regex").CheckCommand("rm -rf x") == nil},
		{c.CheckCommand("ls"), false, "allow_command_regex", c.Waive("deny_command_regex", "side_effects", "cwd").CheckCommand("ls") == nil},
		{func() error { _, err := c.ResolveCwd(filepath.Dir(dir)); return err }(), true, "cwd", func() bool { _, err := c.Waive("cwd").ResolveCwd(filepath.Dir(dir)); return err == nil }()},
		{func() error { _, err := c.ResolveCwd(filepath.Join(dir, "missing")); return err }(), false, "cwd", false},
	} {
		r, ok := errors.AsType[*Refusal](tc.err)
		if !ok || r.Rule != tc.rule || r.Askable != tc.askable || tc.waivedOK != tc.askable {
			t.Errorf("%v: askable %v rule %q, waived passes %v", tc.err, tc.askable, tc.rule, tc.waivedOK)
		}
	}
	if c.Waive() != c || len(c.Rules.Blocked) == 0 || c.Rules.DenyCommand == nil || len(c.Cwd.Allowed) == 0 {
		t.Error("Waive changed the configuration it copies")
	}
}
