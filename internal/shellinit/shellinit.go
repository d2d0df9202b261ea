// Package shellinit integrates an interactive bash, zsh or fish that a
// command starts: it writes start-up files that load the user's own, then
// report prompts, command starts and exit codes as OSC 133 marks, which
// package prompt reads.
package shellinit

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// bashIntegration is the start-up file of an interactive bash we integrate:
// it loads what bash would have loaded, then reports prompts (OSC 133 A
// and B around PS1), command starts (C, from PS0) and each command's exit
// code (D, from PROMPT_COMMAND while $? is still the command's). The user's
// PROMPT_COMMAND (a string or, in bash 5.1, an array) runs after that with
// $? intact, and PS1 is wrapped again after it, since prompt frameworks
// rebuild PS1 there. The user's files are not touched. zsh and fish get the
// same marks through their own hooks (shellinit_zsh.go, shellinit_fish.go).
const bashIntegration = `# Written by yieldshell: shell integration for one interactive bash.
if [ -n "$YIELDSHELL_LOGIN_SHELL" ]; then
  unset YIELDSHELL_LOGIN_SHELL
  [ -r /etc/profile ] && . /etc/profile
  if [ -r ~/.bash_profile ]; then . ~/.bash_profile
  elif [ -r ~/.bash_login ]; then . ~/.bash_login
  elif [ -r ~/.profile ]; then . ~/.profile
  fi
else
  [ -r ~/.bashrc ] && . ~/.bashrc
fi
__yieldshell_user_pc=("${PROMPT_COMMAND[@]}")
__yieldshell_set() { return "$1"; }
__yieldshell_hook() {
  local s=$? pc
  printf '\033]133;D;%s\007' "$s"
  for pc in "${__yieldshell_user_pc[@]}"; do
    __yieldshell_set "$s"
    eval "$pc"
  done
  case $PS1 in
    *'133;B'*) ;;
    *) PS1='\[\033]133;A\007\]'"$PS1"'\[\033]133;B\007\]' ;;
  esac
  return "$s"
}
unset PROMPT_COMMAND
PROMPT_COMMAND=__yieldshell_hook
PS0=$'\033]133;C\007'"$PS0"
`

// Integrate returns the command line that runs command, an interactive
// shell invocation, with shell integration, and the environment it needs;
// ok is false when command is not one we integrate (bash, zsh or fish with
// no arguments but -i, -l and --login). The files it needs are checked, and
// written again if missing or not exactly ours, in dir every time
// (PrepareDir, then ensure): nothing planted there runs.
func Integrate(command, dir string) (line string, env []string, ok bool, err error) {
	if !IsShellCommand(command) {
		return "", nil, false, nil
	}
	f := strings.Fields(command)
	path, err := exec.LookPath(f[0])
	if err != nil {
		return "", nil, false, nil // let the shell report it as usual
	}
	if err := PrepareDir(dir); err != nil {
		return "", nil, false, err
	}
	login := slices.ContainsFunc(f[1:], func(a string) bool { return a != "-i" })
	switch filepath.Base(f[0]) {
	case "zsh":
		line, err = integrateZsh(path, f[1:], dir)
	case "fish":
		line, err = integrateFish(path, login, dir)
	default:
		line, env, err = integrateBash(path, login, dir)
	}
	if err != nil {
		return "", nil, false, fmt.Errorf("writing shell integration: %w", err)
	}
	return line, env, true, nil
}

func integrateBash(bash string, login bool, dir string) (string, []string, error) {
	rc := filepath.Join(dir, "bashrc")
	if err := ensure(rc, bashIntegration); err != nil {
		return "", nil, err
	}
	var env []string
	if login {
		env = append(env, "YIELDSHELL_LOGIN_SHELL=1")
	}
	return "exec " + shellQuote(bash) + " --rcfile " + shellQuote(rc) + " -i", env, nil
}

// IsShellCommand reports whether command starts an interactive shell we
// integrate: bash, zsh or fish with no arguments but -i, -l, --login.
func IsShellCommand(command string) bool {
	f := strings.Fields(command)
	if len(f) == 0 || !slices.Contains([]string{"bash", "zsh", "fish"}, filepath.Base(f[0])) {
		return false
	}
	for _, a := range f[1:] {
		switch a {
		case "-i", "-l", "--login", "-il", "-li":
		default:
			return false
		}
	}
	return true
}
