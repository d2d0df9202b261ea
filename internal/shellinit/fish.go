package shellinit

import (
	"path/filepath"
	"strings"
)

// fishIntegration is sourced by an interactive fish through --init-command,
// after the user's configuration: fish_preexec and fish_postexec events
// report a command's start (C) and its exit code (D), and the prompt is
// wrapped in A and B marks. The wrapper is put back at each prompt if the
// user's configuration replaced fish_prompt meanwhile, and the user's
// prompt still sees the command's $status.
const fishIntegration = `# Written by yieldshell: shell integration for one interactive fish.
function __yieldshell_preexec --on-event fish_preexec
    printf '\e]133;C\a'
end
function __yieldshell_postexec --on-event fish_postexec
    printf '\e]133;D;%s\a' $status
end
function __yieldshell_status
    return $argv[1]
end
function __yieldshell_wrap --on-event fish_prompt
    functions -q fish_prompt; or return
    string match -q '*__yieldshell_user_prompt*' -- (functions fish_prompt); and return
    functions -e __yieldshell_user_prompt
    functions -c fish_prompt __yieldshell_user_prompt
    function fish_prompt
        set -l s $status
        printf '\e]133;A\a'
        __yieldshell_status $s
        __yieldshell_user_prompt
        printf '\e]133;B\a'
    end
end
__yieldshell_wrap
`

// integrateFish writes the integration and returns the command line that
// starts fish with it.
func integrateFish(fish string, login bool, dir string) (string, error) {
	path := filepath.Join(dir, "yieldshell.fish")
	if err := ensure(path, fishIntegration); err != nil {
		return "", err
	}
	line := "exec " + shellQuote(fish)
	if login {
		line += " --login"
	}
	return line + " -i --init-command " + shellQuote("source "+fishQuote(path)), nil
}

// fishQuote quotes s for fish, whose single quotes take \' and \\.
func fishQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}
