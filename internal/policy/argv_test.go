package policy

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

func TestSimpleWords(t *testing.T) {
	for _, c := range []struct {
		line string
		want []string // nil: the line needs the shell
	}{
		{"echo hello", []string{"echo", "hello"}},
		{"  ls\t-la /tmp  ", []string{"ls", "-la", "/tmp"}},
		{"git log --format=%H -n 3", []string{"git", "log", "--format=%H", "-n", "3"}},
		{"./build.sh a,b user@host:dir +x", []string{"./build.sh", "a,b", "user@host:dir", "+x"}},
		{"", nil},
		{"   ", nil},
		// quoting, expansion, globs, tilde, braces, history
		{"echo 'a'", nil}, {`echo "a"`, nil}, {`echo a\ b`, nil}, {"echo $HOME", nil},
		{"echo `id`", nil}, {"ls *.go", nil}, {"ls a?", nil}, {"ls [ab]", nil}, {"ls ~", nil},
		{"echo {a,b}", nil}, {"echo !!", nil},
		// operators, redirections, comments, newlines
		{"a; b", nil}, {"a && b", nil}, {"a | b", nil}, {"a &", nil}, {"a > f", nil}, {"a < f", nil},
		{"a # c", nil}, {"a\nb", nil}, {"(a)", nil}, {"a\r", nil},
		// assignments, keywords, builtins
		{"FOO=1 env", nil}, {"=x", nil}, {"if", nil}, {"cd /tmp", nil}, {"exit 3", nil}, {"exec ls", nil},
		{"export A", nil}, {"read x", nil}, {"wait", nil}, {"kill %1", nil}, {"true", nil}, {"printf x", nil},
		// echo where bash's builtin and the program differ
		{"echo -n hi", nil}, {"echo --version", nil}, {"echo a -e", nil},
		// a program that must outlive its own fork's session change
		{"setsid sleep 1", nil},
		// non-ASCII
		{"echo héllo", nil},
	} {
		got, ok := SimpleWords(c.line)
		if ok != (c.want != nil) || !slices.Equal(got, c.want) {
			t.Errorf("SimpleWords(%q) = %q, %v; want %q", c.line, got, ok, c.want)
		}
	}
}

func TestCommandArgv(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("a Unix shell's command line: Windows runs commands under cmd or PowerShell, never directly")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, f := range map[string]struct {
		text string
		mode os.FileMode
	}{"prog": {"#!/bin/sh\n", 0o755}, "plain": {"#!/bin/sh\n", 0o644}, "noshebang": {"echo hi\n", 0o755}, "elf": {"\x7fELF...", 0o755}} {
		if err := os.WriteFile(filepath.Join(bin, name), []byte(f.text), f.mode); err != nil {
			t.Fatal(err)
		}
	}
	env := []string{"PATH=/nonexistent:" + bin, "SHLVL=2", "PWD=/elsewhere"}
	for _, c := range []struct {
		name           string
		shell, line    string
		isDefault, tty bool
		env            []string
		wantPath       string
		wantArgs       []string
		wantEnvHas     []string
	}{
		{name: "direct", shell: "/bin/bash", line: "prog a", isDefault: true, env: env,
			wantPath: filepath.Join(bin, "prog"), wantArgs: []string{"prog", "a"},
			wantEnvHas: []string{"PWD=" + dir, "SHLVL=3", "_=" + filepath.Join(bin, "prog")}},
		{name: "direct_tty", shell: "/bin/sh", line: "prog", isDefault: true, tty: true, env: env,
			wantPath: filepath.Join(bin, "prog"), wantArgs: []string{"prog"}},
		{name: "relative_path", shell: "/bin/bash", line: "bin/prog", isDefault: true, env: env,
			wantPath: filepath.Join(bin, "prog"), wantArgs: []string{"bin/prog"}},
		{name: "relative_PATH_entry", shell: "/bin/bash", line: "prog", isDefault: true, env: []string{"PATH=bin"},
			wantPath: filepath.Join(bin, "prog"), wantArgs: []string{"prog"}},
		{name: "not_found", shell: "/bin/bash", line: "nosuch a", isDefault: true, env: env,
			wantPath: "/bin/bash", wantArgs: []string{"/bin/bash", "--norc", "--noprofile", "-c", "nosuch a"}},
		{name: "not_executable", shell: "/bin/bash", line: "plain", isDefault: true, env: env,
			wantPath: "/bin/bash", wantArgs: []string{"/bin/bash", "--norc", "--noprofile", "-c", "plain"}},
		{name: "script_without_shebang", shell: "/bin/bash", line: "noshebang", isDefault: true, env: env,
			wantPath: "/bin/bash", wantArgs: []string{"/bin/bash", "--norc", "--noprofile", "-c", "noshebang"}},
		{name: "elf", shell: "/bin/bash", line: "elf", isDefault: true, env: env,
			wantPath: filepath.Join(bin, "elf"), wantArgs: []string{"elf"}},
		{name: "shell_named", shell: "/bin/bash", line: "prog", env: env,
			wantPath: "/bin/bash", wantArgs: []string{"/bin/bash", "-c", "prog"}},
		{name: "other_default_shell", shell: "/usr/bin/zsh", line: "prog", isDefault: true, env: env,
			wantPath: "/usr/bin/zsh", wantArgs: []string{"/usr/bin/zsh", "-c", "prog"}},
		{name: "bash_env", shell: "/bin/bash", line: "prog", isDefault: true, env: append(slices.Clone(env), "BASH_ENV=/x"),
			wantPath: "/bin/bash", wantArgs: []string{"/bin/bash", "--norc", "--noprofile", "-c", "prog"}},
		{name: "exported_function", shell: "/bin/bash", line: "prog", isDefault: true, env: append(slices.Clone(env), "BASH_FUNC_prog%%=() { :; }"),
			wantPath: "/bin/bash", wantArgs: []string{"/bin/bash", "--norc", "--noprofile", "-c", "prog"}},
		{name: "tty_shell_keeps_leading", shell: "/bin/bash", line: "setsid sh -c 'x'", isDefault: true, tty: true, env: env,
			wantPath: "/bin/bash", wantArgs: []string{"/bin/bash", "--norc", "--noprofile", "-c", "setsid sh -c 'x'\n#"}},
		{name: "tty_trailing_backslash", shell: "/bin/bash", line: `a | \`, isDefault: true, tty: true, env: env,
			wantPath: "/bin/bash", wantArgs: []string{"/bin/bash", "--norc", "--noprofile", "-c", `a | \`}},
		{name: "pipes_shell_may_exec", shell: "/bin/bash", line: "a | b", isDefault: true, env: env,
			wantPath: "/bin/bash", wantArgs: []string{"/bin/bash", "--norc", "--noprofile", "-c", "a | b"}},
		{name: "tty_dash_forks_anyway", shell: "/bin/sh", line: "a | b", isDefault: true, tty: true, env: env,
			wantPath: "/bin/sh", wantArgs: []string{"/bin/sh", "-c", "a | b"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, gotEnv := CommandArgv(c.shell, c.line, c.isDefault, c.tty, c.env, dir)
			if got.Path != c.wantPath || !slices.Equal(got.Args, c.wantArgs) || got.Direct != (c.wantPath != c.shell) {
				t.Errorf("CommandArgv = %+v; want %s %q", got, c.wantPath, c.wantArgs)
			}
			for _, kv := range c.wantEnvHas {
				k, _, _ := strings.Cut(kv, "=")
				if v, _ := getenv(gotEnv, k); k+"="+v != kv {
					t.Errorf("env %s=%q; want %s", k, v, kv)
				}
			}
		})
	}
}

// DedupEnv keeps each variable once, with its last value, where it first
// stood: what a child started with the list would see.
func TestDedupEnv(t *testing.T) {
	for _, c := range []struct{ in, want []string }{
		{nil, nil},
		{[]string{"A=1", "B=2"}, []string{"A=1", "B=2"}},
		{[]string{"A=1", "B=2", "A=3"}, []string{"A=3", "B=2"}},
		{[]string{"A=1", "A", "A=x=y"}, []string{"A=x=y"}},
	} {
		if got := DedupEnv(slices.Clone(c.in)); !slices.Equal(got, c.want) {
			t.Errorf("DedupEnv(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// BenchmarkLookPath finds a program in the last of twelve PATH
// directories, as a direct start of a command does (a PATH of a dozen
// directories is common: language toolchains add theirs in front).
func BenchmarkLookPath(b *testing.B) {
	var dirs []string
	for range 12 {
		dirs = append(dirs, b.TempDir())
	}
	prog := filepath.Join(dirs[11], "prog")
	if err := os.WriteFile(prog, []byte("#!/bin/sh\n"), 0o755); err != nil {
		b.Fatal(err)
	}
	env := []string{"PATH=" + strings.Join(dirs, string(filepath.ListSeparator))}
	for b.Loop() {
		if p, ok := lookPath("prog", env, "/"); !ok || p != prog {
			b.Fatalf("lookPath: %q, %v", p, ok)
		}
	}
}
