package prompt

import (
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
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
	// A secret is asked for.
	passwordLine = regexp.MustCompile(`(?i)(?:password|passphrase|passcode|\bpin)\b[^:]{0,60}:[ \t]*$`)
	// The head of a record a program logs rather than asks: a date or a
	// time of day ("2024-05-01T10:00:00Z", "[10:00:00]", `time="...`), or
	// a position in a source file ("main.go:5:2:", "foo.c: In function").
	recordHead = regexp.MustCompile(`^(?:\W{0,3}(?:\d{4}[-/]\d\d[-/]\d\d|\d{1,2}:\d\d:\d\d)|time=|[\w./-]+\.\w+:(?:\d|\s))`)
)

// progressVerbs are the words build tools, package managers and test
// runners begin a line with before they go on working ("Compiling foo: ",
// "Downloading: "), as its first word, lower case.
var progressVerbs = map[string]bool{
	"compiling": true, "collecting": true, "downloading": true, "building": true, "installing": true,
	"fetching": true, "resolving": true, "loading": true, "running": true, "waiting": true,
	"checking": true, "linking": true, "processing": true, "generating": true, "updating": true,
	"uploading": true, "extracting": true, "unpacking": true, "copying": true, "cloning": true,
	"analyzing": true, "analysing": true, "starting": true, "preparing": true, "bundling": true,
	"transforming": true, "testing": true, "scanning": true, "indexing": true, "reading": true,
	"writing": true, "sending": true, "receiving": true, "pulling": true, "pushing": true,
	"connecting": true, "creating": true, "removing": true, "deleting": true, "verifying": true,
	"validating": true, "executing": true, "deploying": true, "migrating": true, "syncing": true,
	"initializing": true, "initialising": true, "packing": true, "publishing": true, "retrying": true,
}

// maskedPassword reports whether line is a password prompt, perhaps
// followed by the mask characters of the keys typed so far ("Password: **"),
// as a line editor in mask mode shows it.
func maskedPassword(line string) bool {
	t := strings.TrimRight(strings.TrimLeft(line, " \t"), "*")
	return len(t) <= maxPromptLen && passwordLine.MatchString(t)
}

// looksLikePrompt reports whether before, the text of the terminal row the
// cursor is on from the row's start up to the cursor, is a prompt, and
// what kind. The session asks only when the cursor stands after the row's
// last visible character, where a program that waits leaves it; it is one
// signal among several, used only after QuietPeriod of silence and never
// when the kernel says the program is busy.
//
// It reads the row as a prompt is built: [indentation] text, the prompt's
// end, the one space after it, and nothing else before the cursor, except
// for a continuation prompt, after which a REPL indents the next line of
// its statement (python 3.13's "...     ", IPython's "   ...:     ",
// irb's "irb(main):003:1*   "). A prompt ends in a sigil ("$ ", "> ",
// "Name: ", "Continue? "), or in a bracketed group that gives the answers
// ("[Y/n]", "(y or [n])"), names the program ("(gdb)") or holds the
// default of a question ("version: (1.0.0)", "keysize? (3072)"). Rows with
// any other end, and rows that read as a program's own progress or log
// ("Compiling foo: ", "45%", "2024-05-01 10:00:00 ...: "), are not
// prompts.
func looksLikePrompt(before string) (Kind, bool) {
	if i := strings.LastIndexByte(before, '\r'); i >= 0 {
		// Pipe mode: a carriage return sent the cursor back to the row's
		// start; what follows it is what stands before the cursor.
		before = before[i+1:]
	}
	if len(strings.TrimLeft(before, " \t")) > maxPromptLen {
		return "", false
	}
	body := strings.TrimRight(before, " \t")
	pad := len(before) - len(body)
	text := strings.TrimLeft(body, " \t")
	if text == "" {
		return "", false
	}
	if text[len(text)-1] == ':' && asksSecret(text) {
		return KindPassword, true
	}
	if pad <= 1 && promptText(text) {
		return KindLine, true
	}
	if pad > 0 && continuationLine.MatchString(before) {
		return KindLine, true
	}
	return "", false
}

// promptText reports whether text, a row without its indentation, ends as
// a prompt does and does not read as output.
func promptText(text string) bool {
	last := text[len(text)-1]
	if last >= utf8.RuneSelf {
		// The sigils of themed shell prompts (starship's "❯ ") and of
		// some REPLs ("λ ").
		r, _ := utf8.DecodeLastRuneInString(text)
		return strings.ContainsRune("❯»λ➜", r) && !progress(text)
	}
	switch last {
	case '?':
		// A question, whatever its first word ("Installing 3 packages,
		// continue?").
		return true
	case ')', ']':
		open, _, ok := lastGroup(text)
		if !ok {
			return false
		}
		before := strings.TrimRight(text[:open], " \t")
		switch {
		case before == "":
			// The whole row is the group: the program's name, "(gdb)",
			// "(Pdb)"; a sentence in parentheses is output.
			return programName(text[open+1 : len(text)-1])
		case strings.HasSuffix(before, "?"):
			return true // "OK? (yes)", "What keysize do you want? (3072)"
		}
		if choices, _, ok := confirmOf(text); ok && slices.ContainsFunc(choices, func(c string) bool { return yesNo[strings.ToLower(c)] }) {
			return true // "Proceed (y/n)", "Continue [Y/n]", "(y or [n])"
		}
		if _, ok := defaultGroup(text); !ok {
			// "Compiling x v0.1.0 (/src/x)", "Get:1 ... [151 kB]".
			return false
		}
		return !progress(text) && !record(text)
	case ':':
		return !progress(text) && !record(text)
	case '>', '$', '#':
		// A shell's prompt may show the time: "[10:15:22] ada@box:~$ ".
		return !progress(text)
	case '%':
		if len(text) > 1 && text[len(text)-2] >= '0' && text[len(text)-2] <= '9' {
			return false // a percentage: "45%"
		}
		return !progress(text)
	}
	return false
}

// asksSecret reports whether text, ending in ':', asks for a password. The
// words that ask must come after the colon before the last one (cheap to
// look for first; the expression says where).
func asksSecret(text string) bool {
	last := strings.ToLower(text[strings.LastIndexByte(text[:len(text)-1], ':')+1:])
	return (strings.Contains(last, "pass") || strings.Contains(last, "pin")) && passwordLine.MatchString(text)
}

// record reports whether text begins as a log record does (recordHead):
// its first word holds a colon or an equals sign, or a digit in its first
// bytes ("[2024-05-01").
func record(text string) bool {
	first, _, _ := strings.Cut(text, " ")
	return (strings.ContainsAny(first, ":=") || strings.ContainsAny(first[:min(len(first), 4)], "0123456789")) && recordHead.MatchString(text)
}

// programName reports whether s, a row's whole text in brackets, is a
// program's name: one short word ("gdb", "Pdb++").
func programName(s string) bool {
	if r, _ := utf8.DecodeRuneInString(s); len(s) > 16 || !unicode.IsLetter(r) {
		return false
	}
	for _, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && !strings.ContainsRune("_-+", r) {
			return false
		}
	}
	return true
}

// progress reports whether text begins with a progress verb, after any
// marks ("   Compiling", "==> Downloading", "⠙ Resolving").
func progress(text string) bool {
	w := firstWord(text)
	return len(w) > 5 && progressVerbs[w]
}

// firstWord returns the first run of letters of text, lower case, after
// any other characters.
func firstWord(text string) string {
	i := strings.IndexFunc(text, unicode.IsLetter)
	if i < 0 {
		return ""
	}
	j := strings.IndexFunc(text[i:], func(r rune) bool { return !unicode.IsLetter(r) })
	if j < 0 {
		j = len(text) - i
	}
	return strings.ToLower(text[i : i+j])
}
