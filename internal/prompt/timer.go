package prompt

import (
	"regexp"
	"strings"
)

// barePrompt is a whole line that is only a REPL's or a shell's prompt.
var barePrompt = regexp.MustCompile(`^(?:\.\.\. |>>> |> |\$ |# |% )$`)

// BarePrompt reports whether line is a REPL's or a shell's bare prompt
// and nothing else (">>> ", "> ", "$ "): evidence enough that a program
// whose event loop waits on its input and a timer waits at it, where a
// question followed by a timer ("Signing in as ada: ", then a sleep) is
// not.
func BarePrompt(line string) bool { return barePrompt.MatchString(line) }

// Asks reports whether line is a question that names what it expects: it
// ends in a question mark, a group of answers ("[y/N]", "(yes/no)") or a
// default in brackets ("version: (1.0.0) "). Such a line is evidence that
// a program whose event loop also waits on a timer waits at it (npm init
// asks its questions while node's start-up timer runs), where a bare label
// followed by a timer ("Signing in as ada: ", then a sleep) is not.
func Asks(line string) bool {
	t := strings.TrimRight(line, " \t")
	if strings.HasSuffix(t, "?") {
		return true
	}
	if _, _, ok := confirmOf(t); ok {
		return true
	}
	_, ok := defaultGroup(t)
	return ok
}
