package policy

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Argv is what a command's child process runs.
type Argv struct {
	Path string   // the program, absolute
	Args []string // its argument vector, argv[0] included
	// Direct reports that the line is run without a shell in between
	// ([SimpleWords]); Path is then the line's own program.
	Direct bool
}

// CommandArgv decides what runs line: the program itself when the line is
// one simple command ([SimpleWords]) and the shell would add nothing but
// its own start-up, otherwise shell with -c ([ShellArgs]). It is the one
// place the decision is made (session's start path calls it once).
//
// A line runs directly only under the default shell, and only where that
// shell is bash or sh (their -c reads no start-up file): never when the
// caller named a shell, and never when the environment could give a word
// another meaning (BASH_ENV, exported functions). The program is looked up
// on env's PATH as bash does (an empty or relative entry counts from dir);
// when it is not found the shell runs the line, so that "command not
// found" and exit code 127 stay the shell's. The child's environment then
// gets what bash would have put there: PWD, SHLVL one up, and _ naming the
// program.
//
// In TTY mode bash is kept from exec'ing the line's last command
// ([keepLeader]), so that the shell leads the terminal's session to the
// end, as in a terminal.
func CommandArgv(shell, line string, isDefault, tty bool, env []string, dir string) (Argv, []string) {
	if isDefault && directShell(shell) {
		if words, ok := SimpleWords(line); ok && !shapedEnv(env) {
			if path, ok := lookPath(words[0], env, dir); ok {
				return Argv{Path: path, Args: words, Direct: true}, directEnv(env, dir, path)
			}
		}
	}
	if tty && isBash(shell) {
		line = keepLeader(line)
	}
	return Argv{Path: shell, Args: ShellArgs(shell, line, isDefault)}, env
}

// keepLeader appends a comment line to line, which keeps bash from
// exec'ing the last command of its -c string: bash does that only when
// nothing follows the command in the string. A command exec'd by the
// shell leads the terminal's session, and when it ends the kernel sends
// SIGHUP to the terminal's foreground group: a child it forked to leave
// the session (setsid does that, and every program that daemonizes) dies
// if it has not left yet. A trailing backslash is left alone: it would
// join the comment to the line.
func keepLeader(line string) string {
	if strings.HasSuffix(line, `\`) {
		return line
	}
	return line + "\n#"
}

// directShell reports whether shell's -c runs a simple command the way
// exec'ing it does: bash and POSIX sh read no start-up file for it (bash
// reads BASH_ENV, which [shapedEnv] checks).
func directShell(shell string) bool {
	switch filepath.Base(shell) {
	case "bash", "sh", "dash":
		return filepath.IsAbs(shell)
	}
	return false
}

// shapedEnv reports whether env could make a word mean something else to
// bash than the program of that name: a BASH_ENV file run before the line,
// or an exported function.
func shapedEnv(env []string) bool {
	for _, kv := range env {
		if strings.HasPrefix(kv, "BASH_ENV=") && len(kv) > len("BASH_ENV=") || strings.HasPrefix(kv, "BASH_FUNC_") {
			return true
		}
	}
	return false
}

// SimpleWords splits line into its words when it is one simple command
// whose words mean to the shell exactly what they say: words of letters,
// digits and _ . / : , + @ % = - only, separated by spaces or tabs, so no
// quoting, expansion, glob, tilde, redirection, operator, comment or
// newline; no assignment before the program; a program that is not a
// shell keyword or builtin (echo is, unless an argument starts with -,
// where bash's and the program's differ); and not setsid, whose fork
// needs a session leader that outlives it (see [keepLeader]).
func SimpleWords(line string) ([]string, bool) {
	words := strings.FieldsFunc(line, func(r rune) bool { return r == ' ' || r == '\t' })
	if len(words) == 0 {
		return nil, false
	}
	for _, c := range line {
		if c != ' ' && c != '\t' && !safeChar(c) {
			return nil, false
		}
	}
	prog := words[0]
	if strings.Contains(prog, "=") || shellWords[prog] || prog == "setsid" {
		return nil, false
	}
	if prog == "echo" {
		for _, w := range words[1:] {
			if strings.HasPrefix(w, "-") {
				return nil, false
			}
		}
	}
	return words, true
}

func safeChar(c rune) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.ContainsRune("_./:,+@%=-", c)
}

// shellWords are bash's keywords and builtins but echo: a line starting
// with one needs the shell.
var shellWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`if then else elif fi case esac for select while until do done in function time coproc
		. : alias bg bind break builtin caller cd command compgen complete compopt continue declare dirs disown enable
		eval exec exit export false fc fg getopts hash help history jobs kill let local logout mapfile popd printf
		pushd pwd read readarray readonly return set shift shopt source suspend test times trap true type typeset
		ulimit umask unalias unset wait`) {
		m[w] = true
	}
	return m
}()

// lookPath finds name as bash would in env's PATH (a name with a slash is
// taken as it is, from dir), returning an absolute path.
func lookPath(name string, env []string, dir string) (string, bool) {
	if strings.Contains(name, "/") {
		return executable(abs(name, dir))
	}
	path, ok := getenv(env, "PATH")
	if !ok {
		// bash's default search path when PATH is unset.
		path = "/usr/local/bin:/usr/local/sbin:/usr/bin:/usr/sbin:/bin:/sbin:."
	}
	for _, d := range filepath.SplitList(path) {
		if d == "" {
			d = "."
		}
		if p, ok := executable(abs(filepath.Join(d, name), dir)); ok {
			return p, true
		}
	}
	return "", false
}

func abs(p, dir string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(dir, p)
}

// executable reports whether p is a regular file someone may execute that
// the system can run by itself: a binary or a script with a #! line. bash
// runs any other executable file as a script of its own (execve fails with
// ENOEXEC), which only the shell can do.
func executable(p string) (string, bool) {
	// Most names looked up are not in most directories of PATH: a stat
	// says so at half the cost of an open.
	if fi, err := os.Stat(p); err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
		return "", false
	}
	f, err := os.Open(p)
	if err != nil {
		return "", false
	}
	defer f.Close()
	var head [4]byte
	if n, _ := io.ReadFull(f, head[:]); n < 2 || !runnable(head[:n]) {
		return "", false
	}
	return p, true
}

// runnable reports whether a file starting with head is one execve runs:
// #!, ELF, or Mach-O (either byte order, and universal).
func runnable(head []byte) bool {
	if bytes.HasPrefix(head, []byte("#!")) {
		return true
	}
	for _, magic := range []string{"\x7fELF", "\xcf\xfa\xed\xfe", "\xce\xfa\xed\xfe", "\xfe\xed\xfa\xcf", "\xfe\xed\xfa\xce", "\xca\xfe\xba\xbe"} {
		if string(head) == magic {
			return true
		}
	}
	return false
}

// DedupEnv keeps the last value of each variable of env ("KEY=VALUE"),
// where the first stood, as a child started with env would see them. It
// reuses env's array.
func DedupEnv(env []string) []string {
	seen := make(map[string]int, len(env))
	out := env[:0]
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if i, ok := seen[k]; ok {
			out[i] = kv
			continue
		}
		seen[k] = len(out)
		out = append(out, kv)
	}
	return out
}

func getenv(env []string, key string) (string, bool) {
	v, ok := "", false
	for _, kv := range env {
		if k, val, found := strings.Cut(kv, "="); found && k == key {
			v, ok = val, true // the last one wins, as in the child
		}
	}
	return v, ok
}

// directEnv is env with what bash exports to the program it runs: PWD (the
// working directory), SHLVL one up and _ (the program's path).
func directEnv(env []string, dir, path string) []string {
	lvl := 0
	if v, ok := getenv(env, "SHLVL"); ok {
		if n, err := strconv.Atoi(v); err == nil && n > 0 {
			lvl = n
		}
	}
	out := make([]string, 0, len(env)+3)
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if k != "SHLVL" && k != "_" && (k != "PWD" || dir == "") {
			out = append(out, kv)
		}
	}
	if dir != "" {
		out = append(out, "PWD="+dir)
	}
	return append(out, "SHLVL="+strconv.Itoa(lvl+1), "_="+path)
}
