package policy

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// shellsFile lists the system's login shells, the only shells a command
// may ask for while a command regex is set.
const shellsFile = "/etc/shells"

// regexRule names the command regex in force for a refusal: the allow-list
// if there is one (it is the stricter promise), the deny-list otherwise;
// "" when neither is set.
func (c *Config) regexRule() (rule, env string) {
	switch {
	case c.Rules.AllowCommand != nil:
		return "allow_command_regex", envAllowCommand
	case c.Rules.DenyCommand != nil:
		return "deny_command_regex", envDenyCommand
	}
	return "", ""
}

// RiskyEnvVar reports whether setting the variable name can change which
// program runs, load code into it or run a start-up file: a shell's,
// the dynamic loader's or a common interpreter's. While a command regex is
// set such an overlay is refused (issue 30 item 7: BASH_ENV, ENV, PATH,
// PATH=. with cwd and LD_PRELOAD all ran what no regex saw). Names are
// compared upper-cased, as Windows does.
func RiskyEnvVar(name string) bool {
	name, _, _ = strings.Cut(name, "=")
	name = strings.ToUpper(name)
	switch name {
	case "BASH_ENV", "BASHOPTS", "BROWSER", "CDPATH", "EDITOR", "ENV", "GCONV_PATH", "HOME",
		"IFS", "JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS", "LESSCLOSE", "LESSOPEN", "LOCPATH",
		"NLSPATH", "PAGER", "PERL5DB", "PERL5OPT", "PERLLIB", "PROMPT_COMMAND", "PS4",
		"PYTHONHOME", "PYTHONSTARTUP", "PYTHONUSERBASE", "RUBYLIB", "RUBYOPT", "SHELL",
		"SHELLOPTS", "VISUAL", "XDG_CONFIG_DIRS", "XDG_CONFIG_HOME", "ZDOTDIR", "_JAVA_OPTIONS":
		return true
	}
	// The loader's (LD_PRELOAD, LD_AUDIT, DYLD_INSERT_LIBRARIES), bash's
	// exported functions (BASH_FUNC_ls%%), git's (GIT_SSH_COMMAND,
	// GIT_EXEC_PATH, GIT_CONFIG_*: any of them can run a program).
	for _, p := range [...]string{"LD_", "DYLD_", "BASH_FUNC_", "GIT_"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	// Search paths (PATH, PYTHONPATH, NODE_PATH, LD_LIBRARY_PATH) and
	// variables that name a command or its options (GIT_PAGER, SSH_ASKPASS,
	// NODE_OPTIONS, MAVEN_OPTS, FOO_CMD).
	for _, s := range [...]string{"PATH", "_COMMAND", "_CMD", "_PAGER", "_EDITOR", "_SHELL", "ASKPASS", "_OPTIONS", "_OPTS"} {
		if strings.HasSuffix(name, s) {
			return true
		}
	}
	return false
}

// CheckEnv refuses, while a command regex is set, an environment overlay
// that sets a variable which can change what runs (RiskyEnvVar): the regex
// would judge one command and another would run. The refusal names the
// variables, never their values. Without a regex every overlay is allowed.
func (c *Config) CheckEnv(env map[string]string) error {
	rule, envName := c.regexRule()
	if rule == "" {
		return nil
	}
	var risky []string
	for k := range env {
		if RiskyEnvVar(k) {
			risky = append(risky, k)
		}
	}
	if len(risky) == 0 {
		return nil
	}
	slices.Sort(risky)
	return refuse(rule, fmt.Sprintf(
		"env not allowed by policy (%s): %s can change which program runs or load code into it, "+
			"and %s judges only the command's text. Nothing was started. "+
			"Run the command without setting %s (put the program's path or options in the command itself, "+
			"where the operator's pattern sees them), or ask the operator to unset %s.",
		rule, quoteNames(risky), envName, pronoun(risky), envName))
}

// CheckShell refuses, while a command regex is set, a shell (an absolute
// path, as found on PATH) that is not one of the system's login shells
// listed in /etc/shells: any other program run with "-c <command>" can do
// what the regex never saw. The default shell (DefaultShell, which the
// operator chose or bash or /bin/sh) and /bin/sh are always allowed.
func (c *Config) CheckShell(shell string) error {
	return c.checkShell(shell, shellsFile)
}

func (c *Config) checkShell(shell, list string) error {
	rule, envName := c.regexRule()
	if rule == "" || shell == "" || shell == SystemShell || shell == c.DefaultShell() {
		return nil
	}
	shells := loginShells(list)
	if slices.Contains(shells, shell) {
		return nil
	}
	if real, err := filepath.EvalSymlinks(shell); err == nil {
		for _, s := range shells {
			if r, err := filepath.EvalSymlinks(s); err == nil && r == real {
				return nil
			}
		}
	}
	known := "none is listed"
	if len(shells) > 0 {
		known = "one of " + strings.Join(shells, ", ")
	}
	return refuse(rule, fmt.Sprintf(
		"shell %q not allowed by policy (%s): while %s is set, a command runs only under the default shell (%s), "+
			"%s or a login shell listed in %s (%s), since another program given the command could run "+
			"what the operator's pattern never saw. Nothing was started. Omit shell, or pass a listed shell.",
		shell, rule, envName, c.DefaultShell(), SystemShell, shellsFile, known))
}

// loginShells reads the absolute paths listed in file; a missing file
// lists none.
func loginShells(file string) []string {
	f, err := os.Open(file)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if filepath.IsAbs(line) && !slices.Contains(out, line) {
			out = append(out, line)
		}
	}
	return out
}

func quoteNames(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}

func pronoun(names []string) string {
	if len(names) == 1 {
		return "it"
	}
	return "them"
}
