package prompt

import (
	"regexp"
	"strings"
	"time"
)

// Kind says what a waiting program expects.
type Kind string

const (
	KindLine     Kind = "line"     // a line of text (a question, a REPL)
	KindPassword Kind = "password" // a secret: the terminal does not echo it
	KindCommand  Kind = "command"  // a shell prompt, ready for a command
)

// QuietPeriod is how long output must have stopped, after a prompt-shaped
// last line, before the heuristic alone says a program is waiting. Short
// enough that a REPL answers at once to a person; long enough that a
// program printing a line in pieces has written the next piece.
const QuietPeriod = 150 * time.Millisecond

// maxPromptLen bounds a prompt line; longer partial lines are output still
// being written (a progress line, a long log record).
const maxPromptLen = 300

var (
	// Lines ending like a prompt: shells and REPLs ("$ ", ">>> ",
	// "(gdb) "), questions ("Name: ", "Continue? ", "[y/N]"), menus.
	// gdb asks "(y or n) " and, with a default, "(y or [n]) ".
	promptEnd = regexp.MustCompile(`(?:[$#%>?:]|\(y/n\)|\(yes/no\)|\[[yYnN]/[yYnN]\]|\((?:\[y\]|y) or (?:\[n\]|n)\)|\([A-Za-z][\w-]{0,15}\))[ \t]?$`)
	// A secret is asked for.
	passwordLine = regexp.MustCompile(`(?i)(?:password|passphrase|passcode|\bpin)\b[^:]{0,60}:[ \t]*$`)
	// Lines that end like a prompt but are progress: build tools and test
	// runners print these and go on working.
	falseFriend = regexp.MustCompile(`(?i)^\W*(?:compiling|collecting|downloading|building|installing|fetching|resolving|loading|running|waiting|checking|linking|processing|generating|updating|uploading|extracting|unpacking|copying|cloning|analy[sz]ing|starting|preparing|bundling|transforming|testing|scanning|indexing|reading|writing|sending|receiving)\b|\.\.\.?[ \t]*$|\d%[ \t]?$`)
	// Whole lines that are prompts even though they match a false friend
	// (Python's continuation prompt ends in "...").
	knownPrompt = regexp.MustCompile(`^(?:\.\.\. |>>> |> |\$ |# |% )$`)
)

// MaskedPassword reports whether line is a password prompt, perhaps
// followed by the mask characters of the keys typed so far ("Password: **"),
// as a line editor in mask mode shows it.
func MaskedPassword(line string) bool {
	t := strings.TrimRight(strings.TrimLeft(line, " \t"), "*")
	return len(t) <= maxPromptLen && passwordLine.MatchString(t)
}

// LooksLikePrompt reports whether line, the last line a program wrote with
// the cursor still on it, has the shape of a prompt, and what kind. It is
// one signal among several: the session uses it only after QuietPeriod of
// silence and never when the kernel says the program is busy.
func LooksLikePrompt(line string) (Kind, bool) {
	if knownPrompt.MatchString(line) {
		return KindLine, true
	}
	t := strings.TrimLeft(line, " \t")
	if t == "" || len(t) > maxPromptLen {
		return "", false
	}
	if passwordLine.MatchString(t) {
		return KindPassword, true
	}
	if !promptEnd.MatchString(t) || falseFriend.MatchString(t) {
		return "", false
	}
	return KindLine, true
}
