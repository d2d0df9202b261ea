package prompt

import "regexp"

// barePrompt is a whole line that is only a REPL's or a shell's prompt.
var barePrompt = regexp.MustCompile(`^(?:\.\.\. |>>> |> |\$ |# |% )$`)

// BarePrompt reports whether line is a REPL's or a shell's bare prompt
// and nothing else (">>> ", "> ", "$ "): evidence enough that a program
// whose event loop waits on its input and a timer waits at it, where a
// question followed by a timer ("Signing in as ada: ", then a sleep) is
// not.
func BarePrompt(line string) bool { return barePrompt.MatchString(line) }
