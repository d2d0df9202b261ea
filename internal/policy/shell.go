package policy

import (
	"errors"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// envShell names the program that runs a command whose exec names no shell.
const envShell = "YIELDSHELL_SHELL" // extension

// Other hosts (exec's host): the allowed ones, separated by commas or
// blanks, and the ssh command with its options.
const (
	envHosts = "YIELDSHELL_HOSTS"
	envSSH   = "YIELDSHELL_SSH"
)

// SystemShell is the POSIX shell every Unix has. It is the default where
// bash is not installed, and always an allowed shell. On Windows, where
// there is none, the engine runs cmd.exe for it (package pty).
const SystemShell = "/bin/sh"

// The default shell is bash where it is installed: it hands a lone command
// its own process (exec), and after a Ctrl-C it waits for the program and
// ends of SIGINT only if the program did, so the exit code reported is the
// program's, as in a terminal or tmux. Debian's /bin/sh (dash) instead
// forks every command, holds signals while it forks, and kills itself with
// SIGINT once its foreground program ends after a Ctrl-C, whatever that
// program's own exit code (issue 32, cause 4).
var bashCandidates = []string{"/bin/bash", "bash"}

// DefaultShell returns the program that runs a command (with -c) when the
// command names no shell: YIELDSHELL_SHELL's, else bash where it is
// installed, else /bin/sh. A zero Config's is /bin/sh.
func (c *Config) DefaultShell() string {
	if c.Shell == "" {
		return SystemShell
	}
	return c.Shell
}

// ShellArgs returns the argument vector that runs line under shell. bash
// as the default shell gets --norc and --noprofile: a non-interactive bash
// reads no start-up file anyway, except ~/.bashrc when it thinks sshd
// started it (SSH_CLIENT set and SHLVL unset, as in a server started
// outside a shell), which must not run before every command. BASH_ENV is
// still honoured (docs/guide.md, "The shell that runs a command"): it is the user's own, in
// the server's environment, and an agent's env overlay that sets it is
// refused while a command regex is set (RiskyEnvVar). A shell the command
// asks for by name gets "-c LINE" alone, as ever.
func ShellArgs(shell, line string, isDefault bool) []string {
	if isDefault && isBash(shell) {
		return []string{shell, "--norc", "--noprofile", "-c", line}
	}
	return []string{shell, "-c", line}
}

// isBash reports whether path names bash, with either separator (a
// Windows path is judged the same on every system).
func isBash(path string) bool {
	base := strings.ToLower(path[strings.LastIndexAny(path, `/\`)+1:])
	return base == "bash" || base == "bash.exe"
}

// resolveShell finds the default shell: value (YIELDSHELL_SHELL, a name on
// PATH or an absolute path) when it is set, otherwise bash where lookPath
// finds it, otherwise /bin/sh. On Windows the default is /bin/sh, which
// the engine runs as cmd.exe: a bash there (Git Bash's, WSL's) is asked
// for by name.
func resolveShell(value, goos string, lookPath func(string) (string, error)) (string, error) {
	if value != "" {
		path, err := lookPath(value)
		if err != nil {
			return "", err
		}
		return path, nil
	}
	if goos == "windows" {
		return SystemShell, nil
	}
	for _, c := range bashCandidates {
		// Absolute on Unix (judged the same on every system): a relative
		// hit would be looked up again in each command's cwd.
		if path, err := lookPath(c); err == nil && strings.HasPrefix(path, "/") {
			return path, nil
		}
	}
	return SystemShell, nil
}

// shell reads YIELDSHELL_SHELL and resolves the default shell.
func (l *loader) shell() string {
	v, _ := l.value(envShell)
	path, err := resolveShell(v, runtime.GOOS, exec.LookPath)
	if err == nil && v != "" && !filepath.IsAbs(path) {
		// ./sh would be looked up again in each command's own cwd.
		err = errors.New("a relative path")
	}
	if err != nil {
		problem := "not found"
		if !errors.Is(err, exec.ErrNotFound) {
			problem = err.Error()
		}
		l.fail(envShell, v, "%s; want a shell's absolute path or its name on PATH (default: bash if installed, else /bin/sh)", problem)
		return ""
	}
	return path
}
