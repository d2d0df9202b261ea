package prompt

import (
	"regexp"
	"strings"
)

var (
	// barePrompt is a whole line that is only a REPL's or a shell's prompt.
	barePrompt = regexp.MustCompile(`^(?:\.\.\. |>>> |> |\$ |# |% )$`)
	// namedPrompt is a REPL's or a debugger's prompt that names it, in one
	// word, trimmed: "debug>", "mysql>", "irb(main):001:0>", "(Pdb)".
	namedPrompt = regexp.MustCompile(`^\S*[A-Za-z]\S*[>$#%)]$`)
)

// BarePrompt reports whether line is a REPL's or a shell's bare prompt
// and nothing else (">>> ", "> ", "$ "): evidence enough that a program
// whose event loop waits on its input and a timer waits at it, where a
// question followed by a timer ("Signing in as ada: ", then a sleep) is
// not.
func BarePrompt(line string) bool { return barePrompt.MatchString(line) }

// NamedPrompt reports whether line is a REPL's or a debugger's own prompt
// that names it ("debug> ", "mysql> ", "(Pdb) "): one word ending in a
// prompt's mark, never a question (those end in ":" or "?"). Like a bare
// prompt, it asks for the next command even when a timer runs beside it
// or the program's tree listens on a port (node inspect's debuggee).
func NamedPrompt(line string) bool {
	return strings.HasSuffix(line, " ") && namedPrompt.MatchString(strings.TrimSpace(line))
}

// REPLPrompt reports whether line is a bare or a named prompt.
func REPLPrompt(line string) bool { return BarePrompt(line) || NamedPrompt(line) }
