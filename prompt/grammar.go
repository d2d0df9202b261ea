package prompt

import (
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/yieldshell/yieldshell/screen"
)

// Grammar is what a waiting program asks, read from its prompt line and its
// screen: the refined kind, and what an answer can be.
type Grammar struct {
	Kind Kind
	// Choices are the answers to type: a confirm's (["y","n"]) or a
	// numbered menu's numbers.
	Choices []string
	// Default is the answer a bare Enter gives, when the prompt shows one:
	// the capital letter of [Y/n], gdb's [n], npm's "(foo)".
	Default string
	// Range is the span of numbers a line prompt accepts, when it shows
	// one: "(1-128, default 1)", "(1-3)".
	Range *Range
	// Items are a menu's entries, top to bottom (dialog buttons left to
	// right), as drawn, without markers.
	Items []string
	// Selected is the index in Items of the entry Enter picks now (the
	// highlighted or marked one); -1 when none is.
	Selected int
	// Checked lists the indexes of the items a multi-select menu shows
	// ticked ([x], ◉).
	Checked []int
}

// Range is the span of numbers a prompt accepts, both ends included.
type Range struct {
	Min int `json:"min" jsonschema:"the smallest number accepted"`
	Max int `json:"max" jsonschema:"the largest number accepted"`
}

// Context is what Classify reads.
type Context struct {
	// Kind is what the evidence said: line, password or command.
	Kind Kind
	// Line is the line the cursor is on: the prompt.
	Line string
	// Screen is the rendered terminal (PTY mode); nil in pipe mode.
	Screen *screen.Styled
	// Raw: the terminal is not in canonical mode, so the program reads
	// keys one by one (a menu, a pager, an editor, a line editor).
	Raw bool
	// Programs are the names of the processes that could be reading (the
	// foreground process group), when known.
	Programs []string
}

// Classify tells what a waiting program asks, from its prompt line, its
// screen and the terminal's state; no model, only the shapes people read.
// A password or a shell's command prompt stays what it is.
func Classify(c Context) Grammar {
	g := Grammar{Kind: c.Kind, Selected: -1}
	if c.Kind == KindPassword || c.Kind == KindCommand {
		return g
	}
	if g.Kind == "" {
		g.Kind = KindLine
	}
	if k, ok := fullScreen(c); ok {
		g.Kind = k
		return g
	}
	if choices, def, ok := confirmOf(c.Line); ok {
		g.Kind, g.Choices, g.Default = KindConfirm, choices, def
		return g
	}
	if c.Screen != nil {
		if m, ok := menuOf(c.Screen, c.Raw); ok {
			return m
		}
	}
	if continuationLine.MatchString(c.Line) {
		g.Kind = KindContinuation
		return g
	}
	g.Default, g.Range = lineDefault(c.Line)
	return g
}

// Programs that take the whole terminal to show or edit text.
var (
	pagers  = []string{"less", "more", "most", "pg", "w3m", "lynx"}
	editors = []string{"vi", "vim", "nvim", "view", "vimdiff", "gvim", "nano", "pico", "rnano", "emacs",
		"micro", "hx", "helix", "kak", "joe", "jed", "mcedit", "ne", "mg", "zile"}
	// A pager's status line: less's ":" and "(END)", more's "--More--".
	pagerLine = regexp.MustCompile(`^(?::|\(END\)|.*\(END\) ?|--More--.*|.*\blines \d+-\d+(?:/\d+)?.*|HELP -- .*)$`)
)

// fullScreen tells a pager or an editor, by the program's name or by what
// it draws.
func fullScreen(c Context) (Kind, bool) {
	for _, name := range c.Programs {
		// Debian's alternatives run vim as vim.basic or vim.tiny; emacs
		// as emacs-gtk.
		base, _, _ := strings.Cut(name, ".")
		base, _, _ = strings.Cut(base, "-")
		switch {
		case contains(editors, base):
			return KindEditor, true
		case contains(pagers, base):
			return KindPager, true
		}
	}
	s := c.Screen
	if s == nil || !c.Raw {
		return "", false
	}
	if s.AltScreen && vimTildes(s) {
		return KindEditor, true
	}
	if len(s.Lines) > 0 && strings.Contains(s.Lines[0], "GNU nano") {
		return KindEditor, true
	}
	if s.AltScreen && pagerLine.MatchString(strings.TrimSpace(c.Line)) {
		return KindPager, true
	}
	return "", false
}

// vimTildes reports whether the screen shows vi's column of "~" below the
// end of the text.
func vimTildes(s *screen.Styled) bool {
	n := 0
	for _, l := range s.Lines[1:] {
		if l == "~" {
			n++
		}
	}
	return n >= 2
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

var (
	// What may follow a confirm's choices on its line.
	confirmTail = regexp.MustCompile(`^[\s?:>.!]*$`)
	// An answer among a confirm's choices: a word, or git's "?".
	choiceWord = regexp.MustCompile(`^(?:[A-Za-z][\w-]{0,11}|\?)$`)
	// A default named outright: "[default=N]", "(default: no)", gdisk's
	// "Enter = 8300".
	namedDefault = regexp.MustCompile(`(?i)^(?:default\s*[:=]?|(?:enter|return)\s*=)\s*["']?([\w.-]+)`)
	// "(1-3)": the answers' range, not a default.
	numberRange = regexp.MustCompile(`^(\d+)\s*(?:-|\.\.|to)\s*(\d+)$`)
	yesNo       = map[string]bool{"y": true, "n": true, "yes": true, "no": true}
)

// confirmOf reads a confirm's choices and default from its prompt line:
// the last bracketed group, "[Y/n]", "(yes/no/[fingerprint])",
// "[y,n,q,a,d,e,?]", "(y or [n])", "(yes)", near the end of the line.
func confirmOf(line string) ([]string, string, bool) {
	line = strings.TrimRight(line, " \t")
	open, close, ok := lastGroup(line)
	if !ok {
		return nil, "", false
	}
	tail := line[close+1:]
	named := ""
	if m := namedDefault.FindStringSubmatch(line[open+1 : close]); m != nil && strings.HasPrefix(strings.ToLower(line[open+1:]), "default") {
		// "[yes|no] (default: no)", dpkg's "(Y/I/N/O/D/Z) [default=N]":
		// the choices are the group before the default.
		open2, close2, ok2 := lastGroup(line[:open])
		if !ok2 || strings.TrimSpace(line[close2+1:open]) != "" {
			return nil, "", false
		}
		named, open, close = m[1], open2, close2
	}
	if !confirmTail.MatchString(tail) {
		return nil, "", false
	}
	inner := line[open+1 : close]
	alts := splitChoices(inner)
	var choices []string
	def := named
	for _, a := range alts {
		if strings.HasPrefix(a, "[") && strings.HasSuffix(a, "]") {
			// gdb's "(y or [n])" marks the default; ssh's
			// "[fingerprint]" is a placeholder, not an answer.
			w := a[1 : len(a)-1]
			if yesNo[strings.ToLower(w)] {
				choices = append(choices, w)
				def = w
			}
			continue
		}
		if !choiceWord.MatchString(a) {
			return nil, "", false
		}
		choices = append(choices, a)
	}
	switch {
	case len(choices) == 1 && yesNo[strings.ToLower(choices[0])]:
		// npm's "Is this OK? (yes)": the one answer shown is the default
		// of a yes/no question.
		w := strings.ToLower(choices[0])
		def = w
		if len(w) == 1 {
			choices = []string{"y", "n"}
		} else {
			choices = []string{"yes", "no"}
		}
		return choices, def, true
	case len(choices) < 2:
		return nil, "", false
	}
	if def == "" {
		choices, def = capitalDefault(choices)
	}
	return choices, def, true
}

// lastGroup finds the last bracketed group of line, "(...)" or "[...]",
// nested brackets included: the index of its opening and closing bracket.
func lastGroup(line string) (int, int, bool) {
	close := strings.LastIndexAny(line, ")]")
	if close < 0 {
		return 0, 0, false
	}
	depth := 0
	for i := close; i >= 0; i-- {
		switch line[i] {
		case ')', ']':
			depth++
		case '(', '[':
			depth--
			if depth == 0 {
				return i, close, true
			}
		}
	}
	return 0, 0, false
}

// splitChoices splits a group's content at "/", ",", "|" and " or ". An
// empty alternative means the group is no list of answers (a path,
// "(/src/x)"): then it returns nil.
func splitChoices(s string) []string {
	s = strings.ReplaceAll(s, " or ", "/")
	f := strings.FieldsFunc(s, func(r rune) bool { return r == '/' || r == ',' || r == '|' })
	if len(f) == 0 || strings.Count(s, "/")+strings.Count(s, ",")+strings.Count(s, "|") != len(f)-1 {
		return nil
	}
	for i, a := range f {
		if f[i] = strings.TrimSpace(a); f[i] == "" {
			return nil
		}
	}
	return f
}

// capitalDefault: in "[Y/n]" the one capital answer is the default, and the
// answers are typed in either case; with none or all capital, no default
// shows.
func capitalDefault(choices []string) ([]string, string) {
	upper := -1
	for i, c := range choices {
		r, _ := utf8.DecodeRuneInString(c)
		if unicode.IsUpper(r) {
			if upper >= 0 {
				return choices, ""
			}
			upper = i
		}
	}
	if upper < 0 {
		return choices, ""
	}
	out := make([]string, len(choices))
	for i, c := range choices {
		out[i] = strings.ToLower(c)
	}
	return out, out[upper]
}

// continuationLine matches the prompts REPLs show for the rest of an
// unfinished statement, with whatever indentation they add after it:
// python and node "... ", IPython "   ...: ", sqlite3 "   ...> ", irb
// "irb(main):002:1* ", pry "[2] pry(main)* ", psql "db-# " and "db(# ",
// mysql "    -> ", ghci "ghci| ", R "+ ", lua ">> ".
var continuationLine = regexp.MustCompile(`^(?:\s*(?:\.\.\.|…)[:>]?|\S*\([^)]*\):\d+:\d+[*"'` + "`" + `/\]]|\[\d+\] \S+\([^)]*\)[*"']|[\w.@-]+[-'"(*][#>]|\s+(?:->|'>|">|` + "`" + `>|/\*>)|\s*(?:ghci|Prelude|λ)?\||\+|>>)[ \t]*$`)

// lineDefault reads the default of a line prompt, npm's "package name:
// (foo) ", "Name [John]: ", and the range of numbers it accepts, "Threads
// (1-128, default 1): ".
func lineDefault(line string) (string, *Range) {
	g, ok := shownGroup(line)
	if !ok {
		return "", nil
	}
	return g.def, g.rng
}

// askWords begin a request for a value that ends in neither a colon nor a
// question mark: "Enter version [1.0.0]".
var askWords = map[string]bool{"enter": true, "type": true, "choose": true, "select": true,
	"pick": true, "specify": true, "provide": true, "input": true, "give": true}

// defaultGroup reads the default a prompt shows in brackets after a label
// or a question: npm's "version: (1.0.0) ", gpg's "What keysize do you
// want? (3072) ", "Name [John Doe]: ", "Enter version [1.0.0] ", openssl's
// empty "[]:", "Threads (1-128, default 1): ". None is a group that is the
// whole prompt ("(Pdb) ", the program's name), a range of answers alone
// ("(1-3)"), a hint ("? Pick one (Use arrow keys)", "Command (? for
// help): ", "Validity (days): ", "Code (2 chars): ") or a group after text
// that neither asks nor labels ("Compiling x v0.1.0 (/src/x)").
func defaultGroup(line string) (string, bool) {
	g, ok := shownGroup(line)
	return g.def, ok && g.hasDef
}

// shown is what a bracket after a label or a question holds.
type shown struct {
	def    string
	hasDef bool
	rng    *Range
}

// shownGroup reads the last bracketed group of a prompt line when it
// follows a label or a question: a default, a range, or both.
func shownGroup(line string) (shown, bool) {
	line = strings.TrimRight(line, " \t")
	open, close, ok := lastGroup(line)
	if !ok || close-open > 81 || !confirmTail.MatchString(line[close+1:]) {
		return shown{}, false
	}
	before, after := strings.TrimSpace(line[:open]), line[close+1:]
	v := strings.TrimSpace(line[open+1 : close])
	if before == "" || strings.ContainsAny(v, "()[]") {
		return shown{}, false
	}
	question := strings.HasSuffix(before, "?")
	if !question && !strings.HasSuffix(before, ":") && !strings.ContainsAny(after, ":?") && !askWords[firstWord(before)] {
		return shown{}, false
	}
	if g, ok := namedOrRange(v); ok {
		return g, true
	}
	// After a question a group of words is a hint on how to answer.
	if hint(v) || question && strings.ContainsAny(v, " \t") {
		return shown{}, false
	}
	return shown{def: v, hasDef: true}, true
}

// namedOrRange reads a group whose parts, split at commas, name the
// default ("default 1", "default: no") or give a range of numbers ("1-128"):
// "(1-128, default 1)". Other parts are hints, and a group with neither is
// not read here.
func namedOrRange(v string) (shown, bool) {
	var g shown
	found := false
	for part := range strings.FieldsFuncSeq(v, func(r rune) bool { return r == ',' || r == ';' }) {
		part = strings.TrimSpace(part)
		if m := namedDefault.FindStringSubmatch(part); m != nil {
			g.def, g.hasDef, found = m[1], true, true
		} else if m := numberRange.FindStringSubmatch(part); m != nil {
			lo, err1 := strconv.Atoi(m[1])
			hi, err2 := strconv.Atoi(m[2])
			if err1 == nil && err2 == nil && lo <= hi {
				g.rng, found = &Range{Min: lo, Max: hi}, true
			}
		}
	}
	return g, found
}

var (
	// Words that make a group a hint on how to answer: "(? for help)",
	// "(e.g. city)", "(optional)", "(leave blank for none)".
	hintWord = regexp.MustCompile(`(?i)(?:^|\W)(?:help|e\.?g|i\.?e|optional|required|leave|blank|empty|press|hit|use)(?:\W|$)`)
	// A count of a unit: "(2 chars)", "(2 letter code)", "(8 or more
	// characters)", "(max 64 chars)".
	countHint = regexp.MustCompile(`(?i)^(?:(?:max|min|at least|at most|up to)\s*)?\d+\s*\pL`)
	// A unit alone: "(days)", "(in seconds)", "(MB)".
	unitHint = regexp.MustCompile(`(?i)^(?:in\s+)?(?:seconds|secs|minutes|mins|hours|hrs|days|weeks|months|years|milliseconds|ms|bytes|[kmgt]i?b|chars|characters|letters|digits|words|lines|percent|%|pixels|px)$`)
)

// hint reports whether a group's content tells how to answer rather than
// what Enter alone gives.
func hint(v string) bool {
	return strings.Contains(v, "?") || hintWord.MatchString(v) || countHint.MatchString(v) || unitHint.MatchString(v)
}
