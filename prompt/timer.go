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

// isBarePrompt reports whether line is a REPL's or a shell's bare prompt
// and nothing else (">>> ", "> ", "$ "): evidence enough that a program
// whose event loop waits on its input and a timer waits at it, where a
// question followed by a timer ("Signing in as ada: ", then a sleep) is
// not.
func isBarePrompt(line string) bool { return barePrompt.MatchString(line) }

// asksAnswer reports whether line is a question that names what it expects: it
// ends in a question mark, a group of answers ("[y/N]", "(yes/no)") or a
// default in brackets ("version: (1.0.0) "). Such a line is evidence that
// a program whose event loop also waits on a timer waits at it (npm init
// asks its questions while node's start-up timer runs), where a bare label
// followed by a timer ("Signing in as ada: ", then a sleep) is not.
func asksAnswer(line string) bool {
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

// isNamedPrompt reports whether line is a REPL's or a debugger's own prompt
// that names it ("debug> ", "mysql> ", "(Pdb) "): one word ending in a
// prompt's mark, never a question (those end in ":" or "?"). Like a bare
// prompt, it asks for the next command even when a timer runs beside it
// or the program's tree listens on a port (node inspect's debuggee).
func isNamedPrompt(line string) bool {
	return strings.HasSuffix(line, " ") && namedPrompt.MatchString(strings.TrimSpace(line))
}

// isREPLPrompt reports whether line is a bare or a named prompt.
func isREPLPrompt(line string) bool { return isBarePrompt(line) || isNamedPrompt(line) }
