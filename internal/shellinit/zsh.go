package shellinit

import (
	"path/filepath"
)

// zsh reads its start-up files from $ZDOTDIR (or $HOME). An integrated zsh
// gets ZDOTDIR pointing at a directory of ours whose files each read the
// user's file of the same name first, from where zsh would have read it,
// with ZDOTDIR as the user has it (their .zshenv may set it); the last file
// zsh reads puts the user's ZDOTDIR back for good, so the shell and what
// it starts see the user's own. The integration itself is installed after
// the user's .zshrc: a precmd hook first in line reports the command's exit
// code (D) while $? is still the command's, one last in line wraps PS1 in
// A and B marks (after prompt themes rebuilt it), and preexec reports the
// command's start (C).
const zshRestore = `if (( ${+__yieldshell_user_zdotdir} )); then
  ZDOTDIR=$__yieldshell_user_zdotdir
else
  unset ZDOTDIR
fi
`

const zshSave = `if (( ${+ZDOTDIR} )); then
  __yieldshell_user_zdotdir=$ZDOTDIR
else
  unset __yieldshell_user_zdotdir
fi
`

// zshSource reads the user's file name at top level (a function would make
// the user's typeset declarations local), then remembers the user's
// ZDOTDIR and points zsh at ours again for its next file.
func zshSource(name string) string {
	return zshRestore +
		`[[ -r ${ZDOTDIR:-$HOME}/` + name + ` ]] && builtin source ${ZDOTDIR:-$HOME}/` + name + "\n" +
		zshSave +
		"ZDOTDIR=$__yieldshell_zdotdir\n"
}

// zshDone puts the user's ZDOTDIR back for good.
const zshDone = zshRestore + "unset __yieldshell_user_zdotdir __yieldshell_zdotdir\n"

const zshHeader = "# Written by yieldshell: shell integration for one interactive zsh.\n"

const zshHooks = `__yieldshell_precmd() {
  builtin printf '\e]133;D;%s\a' "$?"
}
__yieldshell_prompt() {
  [[ $PS1 == *'133;B'* ]] || PS1=$'%{\e]133;A\a%}'"$PS1"$'%{\e]133;B\a%}'
}
__yieldshell_preexec() {
  builtin printf '\e]133;C\a'
}
typeset -ga precmd_functions preexec_functions
precmd_functions=(__yieldshell_precmd $precmd_functions __yieldshell_prompt)
preexec_functions+=(__yieldshell_preexec)
`

// zshFiles are the start-up files of our ZDOTDIR.
var zshFiles = map[string]string{
	".zshenv": zshHeader + "__yieldshell_zdotdir=$ZDOTDIR\n" +
		// What the user's ZDOTDIR was when the shell started.
		"if (( ${+YIELDSHELL_ZDOTDIR} )); then\n  __yieldshell_user_zdotdir=$YIELDSHELL_ZDOTDIR\n  unset YIELDSHELL_ZDOTDIR\nelse\n  unset __yieldshell_user_zdotdir\nfi\n" +
		zshSource(".zshenv"),
	".zprofile": zshHeader + zshSource(".zprofile"),
	".zshrc": zshHeader + zshSource(".zshrc") + zshHooks +
		"if [[ ! -o login ]]; then\n" + zshDone + "fi\n",
	".zlogin": zshHeader + zshSource(".zlogin") + zshDone,
}

// integrateZsh writes our ZDOTDIR and returns the command line that starts
// zsh with it, passing on the user's ZDOTDIR (set or not).
func integrateZsh(zsh string, args []string, dir string) (string, error) {
	zd := filepath.Join(dir, "zsh")
	if err := PrepareDir(zd); err != nil {
		return "", err
	}
	for name, content := range zshFiles {
		if err := ensure(filepath.Join(zd, name), content); err != nil {
			return "", err
		}
	}
	line := `if [ "${ZDOTDIR+set}" ]; then YIELDSHELL_ZDOTDIR=$ZDOTDIR; export YIELDSHELL_ZDOTDIR; fi; ` +
		"ZDOTDIR=" + shellQuote(zd) + "; export ZDOTDIR; exec " + shellQuote(zsh)
	for _, a := range args {
		line += " " + a
	}
	if len(args) == 0 {
		line += " -i"
	}
	return line, nil
}
