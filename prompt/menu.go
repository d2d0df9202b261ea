package prompt

import (
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/yieldshell/yieldshell/screen"
)

// Menu markers, as the common prompt libraries, pickers and dialogs draw
// them.
const (
	// The cursor: the entry Enter picks (inquirer ❯, prompts ›, fzf >).
	cursorMarks = "❯›▸▶►→➜➤»>*"
	// Ticked and unticked entries of multi-select and radio lists.
	onMarks  = "●◉☑☒✔✓■◼"
	offMarks = "○◯◌☐□◻"
	// A gutter some libraries draw left of their entries (clack's │), and
	// a dialog's box.
	gutters = "│┃║|"
	// Rows of these are separators: fzf's info line, a dialog's frame.
	rules = "─━═┄┈-"
)

// maxMenuRows bounds the entries reported of one menu.
const maxMenuRows = 100

// menuRow is one row of the screen read as a menu entry.
type menuRow struct {
	y      int
	col    int  // rune index where the entry's text starts
	gutter bool // a gutter came first
	cursor rune // the cursor mark that came before the text, or 0
	mark   int  // +1 ticked, -1 unticked, 0 neither
	text   string
	look   screen.Look // the look of the text's first character
	left   screen.Look // the look of the cell left of the entry
}

// parseRow reads row y as a menu entry; ok is false for a blank row or a
// separator.
func parseRow(s *screen.Styled, y int) (menuRow, bool) {
	rs := []rune(s.Lines[y])
	r := menuRow{y: y}
	i := skipSpaces(rs, 0)
	// A dialog's list sits in a box inside its frame: "│ │ item".
	for i < len(rs) && strings.ContainsRune(gutters, rs[i]) && (i+1 == len(rs) || rs[i+1] == ' ') {
		r.gutter = true
		i = skipSpaces(rs, i+1)
	}
	if i+1 < len(rs) && strings.ContainsRune(cursorMarks, rs[i]) && (rs[i+1] == ' ' || markAt(rs, i+1) != 0) {
		r.cursor = rs[i]
		i = skipSpaces(rs, i+1)
	}
	if m := markAt(rs, i); m != 0 {
		r.mark = m
		i = skipSpaces(rs, i+markLen(rs, i))
	}
	end := len(rs)
	for end > i && (rs[end-1] == ' ' || strings.ContainsRune(gutters, rs[end-1])) {
		end--
	}
	if i >= end {
		return r, false
	}
	text := string(rs[i:end])
	if isRule(text) {
		return r, false
	}
	r.col, r.text = i, strings.Join(strings.Fields(text), " ")
	r.look, r.left = lookAt(s, y, i), lookAt(s, y, i-1)
	return r, true
}

// lookAt is the look of rune x of row y; blank cells past the text have
// the look of the row's last character.
func lookAt(s *screen.Styled, y, x int) screen.Look {
	l := s.Looks[y]
	switch {
	case len(l) == 0:
		return screen.Look{FG: screen.DefaultColor, BG: screen.DefaultColor}
	case x < 0:
		x = 0
	case x >= len(l):
		x = len(l) - 1
	}
	return l[x]
}

func skipSpaces(rs []rune, i int) int {
	for i < len(rs) && rs[i] == ' ' {
		i++
	}
	return i
}

// markAt reads a tick mark at rs[i]: +1 ticked, -1 unticked, 0 none.
func markAt(rs []rune, i int) int {
	if i >= len(rs) {
		return 0
	}
	switch {
	case strings.ContainsRune(onMarks, rs[i]):
		return 1
	case strings.ContainsRune(offMarks, rs[i]):
		return -1
	case i+2 < len(rs) && (rs[i] == '[' && rs[i+2] == ']' || rs[i] == '(' && rs[i+2] == ')'):
		switch rs[i+1] {
		case ' ':
			return -1
		case 'x', 'X', '*', '•', '✓', '✔', 'o':
			return 1
		}
	}
	return 0
}

func markLen(rs []rune, i int) int {
	if rs[i] == '[' || rs[i] == '(' {
		return 3
	}
	return 1
}

// isRule reports whether text is a separator: mostly rule characters, or
// box drawing alone (a frame's corner, clack's └).
func isRule(text string) bool {
	n, rule, box := 0, 0, 0
	for _, c := range text {
		if c == ' ' {
			continue
		}
		n++
		if strings.ContainsRune(rules, c) {
			rule++
		}
		if c >= 0x2500 && c <= 0x257f {
			box++
		}
	}
	return rule >= 3 && rule*2 >= n || box == n
}

// emphasis ranks how strongly a look stands out.
func emphasis(l screen.Look) int {
	e := 0
	if l.Reverse {
		e += 4
	}
	if l.BG != screen.DefaultColor {
		e += 2
	}
	if l.FG != screen.DefaultColor {
		e++
	}
	if l.Bold {
		e++
	}
	return e
}

// menuOf finds a menu on the screen near the cursor (anywhere on the
// alternate screen): entries one per row, aligned, with exactly one
// highlighted or marked; dialog buttons; or numbered entries above the
// prompt. Entries picked with keys need raw mode, as every program that
// draws them sets it.
func menuOf(s *screen.Styled, raw bool) (Grammar, bool) {
	if raw {
		if g, ok := keyMenu(s); ok {
			return g, true
		}
		if g, ok := buttons(s); ok {
			return g, true
		}
	}
	return numbered(s)
}

// keyMenu finds the entries of an arrow-key menu.
func keyMenu(s *screen.Styled) (Grammar, bool) {
	var best Grammar
	bestDist := -1
	var group []menuRow
	// A REPL whose prompt is "> " leaves rows that start with it above
	// its cursor: there the mark is the prompt's, not a menu's cursor.
	var prompt rune
	named := false
	if s.CursorVisible && s.CursorY < len(s.Lines) {
		if rs := []rune(strings.TrimLeft(s.Lines[s.CursorY], " ")); len(rs) > 0 {
			prompt = rs[0]
		}
		named = underNamedPrompt(s)
	}
	cursorAt := -1 // the row a hidden cursor parks on
	if !s.CursorVisible {
		cursorAt = s.CursorY
	}
	// flush ends the group; table: a row of other alignment follows it at
	// once, so the group is a piece of a table (htop's processes, split
	// by the width of their ids), not a menu.
	flush := func(table bool) {
		if g, ok := pick(group, prompt, named && len(group) > 0 && group[0].y < s.CursorY, cursorAt); ok && !table {
			d := distance(s, group)
			if d >= 0 && (bestDist < 0 || d < bestDist) {
				best, bestDist = g, d
			}
		}
		group = group[:0]
	}
	for y := range s.Lines {
		if y == s.CursorY && s.CursorVisible {
			// The prompt's own row (fzf's query line); a hidden cursor
			// parks on the selected entry instead (whiptail).
			flush(false)
			continue
		}
		r, ok := parseRow(s, y)
		if !ok {
			flush(false)
			continue
		}
		if len(group) > 0 {
			if last := group[len(group)-1]; last.col != r.col || last.gutter != r.gutter {
				flush(true)
			}
		}
		group = append(group, r)
	}
	flush(false)
	return best, bestDist >= 0
}

// distance is how far a menu is from the cursor in rows, or -1 when it is
// too far to be the question's (on the normal screen, more than three
// rows away).
func distance(s *screen.Styled, g []menuRow) int {
	first, last := g[0].y, g[len(g)-1].y
	d := 0
	switch {
	case s.CursorY < first:
		d = first - s.CursorY
	case s.CursorY > last:
		d = s.CursorY - last
	}
	if !s.AltScreen && d > 3 && !sameBox(s, min(first, s.CursorY), max(last, s.CursorY)) {
		return -1
	}
	return d
}

// boxSides are what a dialog's frame draws down its left side.
const boxSides = "│┃║├┠┝╟╞╠"

// sameBox reports whether rows from to to lie in one box: all begin with
// its left side in the same column. dialog draws its boxes on the normal
// screen, the list some rows above the buttons where the cursor is.
func sameBox(s *screen.Styled, from, to int) bool {
	col := -1
	for y := from; y <= to; y++ {
		rs := []rune(s.Lines[y])
		i := skipSpaces(rs, 0)
		if i == len(rs) || !strings.ContainsRune(boxSides, rs[i]) || col >= 0 && i != col {
			return false
		}
		col = i
	}
	return true
}

// pick reads a group of aligned rows as a menu: it is one when exactly one
// entry is selected, by a cursor mark, by its look, in a radio list by its
// tick, or in a checklist by the hidden cursor parked on it. Below a
// REPL's own prompt (underPrompt), a mark alone selects nothing: it is
// the REPL's output (a debugger's current line), and what is typed goes to
// the prompt; only a highlighted row is a menu's there.
func pick(g []menuRow, prompt rune, underPrompt bool, cursorAt int) (Grammar, bool) {
	if len(g) < 2 || len(g) > maxMenuRows || listing(g) {
		return Grammar{}, false
	}
	sel := -1
	lit, litOK := standsOut(g)
	highlit := litOK
	if len(g) == 2 && litOK && g[lit].y != cursorAt {
		// Two rows told apart by their look alone are a header and a
		// row as often as a menu (htop): only where the hidden cursor
		// parks on the highlighted one (whiptail) is it a menu.
		litOK = false
	}
	if i, ok := only(g, func(r menuRow) bool { return r.cursor != 0 }); ok && (g[i].cursor != prompt && !underPrompt || highlit && lit == i) {
		// A mark like the prompt's counts where the row is also
		// highlighted (fzf's "> " pointer and prompt).
		sel = i
	} else if litOK {
		sel = lit
	}
	out := Grammar{Kind: KindChoice, Selected: -1}
	for i, r := range g {
		out.Items = append(out.Items, r.text)
		if r.mark > 0 {
			out.Checked = append(out.Checked, i)
		}
	}
	if sel < 0 && len(out.Checked) == 1 && !slices.ContainsFunc(g, func(r menuRow) bool { return r.mark == 0 }) {
		sel = out.Checked[0] // a radio list: the ticked one
	}
	if sel < 0 && out.Checked != nil {
		// A checklist highlights only its cursor's tick box: the hidden
		// cursor parks on that entry.
		sel, _ = only(g, func(r menuRow) bool { return r.y == cursorAt })
	}
	if sel < 0 {
		return Grammar{}, false
	}
	out.Selected = sel
	return out, true
}

// underNamedPrompt reports whether the visible cursor is on the last row
// with text, after a REPL's or debugger's named prompt ("debug> ", "(Pdb) ",
// "ipdb> "). A picker's query line is a bare mark ("> ") and does not
// count.
func underNamedPrompt(s *screen.Styled) bool {
	for y := s.CursorY + 1; y < len(s.Lines); y++ {
		if strings.TrimSpace(s.Lines[y]) != "" {
			return false
		}
	}
	// The screen's rows end at their last character; the cursor stands
	// past the prompt's blank.
	rs := []rune(s.Lines[s.CursorY])
	before := string(rs[:min(max(s.CursorX, 0), len(rs))])
	if s.CursorX > len(rs) {
		before += " "
	}
	return isNamedPrompt(before)
}

// listingRow is a row of a source listing: a line number, then code.
var listingRow = regexp.MustCompile(`^(\d+)\s`)

// listing reports whether the rows are a source listing, numbered one by
// one (a debugger's "> 1 let x = 6;"): the mark there points at the
// current line, not at a menu's entry.
func listing(g []menuRow) bool {
	prev := -1
	for _, r := range g {
		m := listingRow.FindStringSubmatch(r.text)
		if m == nil {
			return false
		}
		n, _ := strconv.Atoi(m[1])
		if prev >= 0 && n != prev+1 {
			return false
		}
		prev = n
	}
	return true
}

// only returns the index of the one row f holds for.
func only(g []menuRow, f func(menuRow) bool) (int, bool) {
	at := -1
	for i, r := range g {
		if f(r) {
			if at >= 0 {
				return -1, false
			}
			at = i
		}
	}
	return at, at >= 0
}

// standsOut returns the row highlighted among the others, which all look
// alike: in reverse video or on another background (a colour alone is how
// programs colour output, not how they highlight); of two rows, the more
// emphasised.
func standsOut(g []menuRow) (int, bool) {
	highlit := func(a, b screen.Look) bool { return a.Reverse != b.Reverse || a.BG != b.BG }
	if len(g) == 2 {
		// The highlighted one stands out from what is left of it; if
		// both or neither do, the more emphasised one.
		if d0, d1 := highlit(g[0].look, g[0].left), highlit(g[1].look, g[1].left); d0 != d1 {
			if d0 {
				return 0, true
			}
			return 1, true
		}
		a, b := emphasis(g[0].look), emphasis(g[1].look)
		switch {
		case !highlit(g[0].look, g[1].look) || a == b:
			return -1, false
		case a > b:
			return 0, true
		}
		return 1, true
	}
	// The common look is the one of the first two rows that agree.
	common := g[0].look
	if g[0].look != g[1].look && g[1].look == g[2].look {
		common = g[1].look
	}
	i, ok := only(g, func(r menuRow) bool { return r.look != common })
	if !ok || !highlit(g[i].look, common) {
		return -1, false
	}
	return i, true
}

// button is a dialog button: "<Yes>", "< OK >".
var button = regexp.MustCompile(`<\s*([A-Za-z][\w '-]{0,19}?)\s*>`)

// buttons finds a row of dialog buttons (whiptail, dialog) with one
// highlighted. A visible cursor on another row is in the dialog's entry
// field (an input or password box): what is typed goes there, and Enter
// takes the highlighted button with the text, so the dialog asks for a
// line, not for one of its buttons.
func buttons(s *screen.Styled) (Grammar, bool) {
	for y := len(s.Lines) - 1; y >= 0; y-- {
		line := s.Lines[y]
		locs := button.FindAllStringSubmatchIndex(line, -1)
		if len(locs) < 2 {
			continue
		}
		if s.CursorVisible && s.CursorY != y {
			return Grammar{}, false
		}
		var g []menuRow
		for _, l := range locs {
			at := len([]rune(line[:l[2]]))
			r := menuRow{y: y, text: line[l[2]:l[3]]}
			r.look, r.left = lookAt(s, y, at), lookAt(s, y, len([]rune(line[:l[0]]))-1)
			g = append(g, r)
		}
		i, ok := standsOut(g)
		if !ok {
			continue
		}
		out := Grammar{Kind: KindChoice, Selected: i}
		for _, r := range g {
			out.Items = append(out.Items, r.text)
		}
		return out, true
	}
	return Grammar{}, false
}

// numberedItem is one "1) apple" or "2. banana" of a numbered menu; several
// may share a row, in columns at least two blanks apart.
var numberedItem = regexp.MustCompile(`(?:^|\s)(\d{1,3})[.)]\s+(\S+(?: \S+)*)`)

// numbered finds a numbered menu right above the prompt: bash's select,
// debconf's text frontend.
func numbered(s *screen.Styled) (Grammar, bool) {
	y := s.CursorY - 1
	if y >= 0 && strings.TrimSpace(s.Lines[y]) == "" {
		y--
	}
	type item struct {
		n    int
		text string
	}
	var items []item
	for ; y >= 0 && len(items) < maxMenuRows; y-- {
		line := s.Lines[y]
		ms := numberedItem.FindAllStringSubmatch(line, -1)
		if len(ms) == 0 || strings.TrimSpace(numberedItem.ReplaceAllString(line, "")) != "" {
			break
		}
		for _, m := range ms {
			n, _ := strconv.Atoi(m[1])
			items = append(items, item{n, m[2]})
		}
	}
	if len(items) < 2 {
		return Grammar{}, false
	}
	slices.SortFunc(items, func(a, b item) int { return a.n - b.n })
	out := Grammar{Kind: KindChoice, Selected: -1}
	for i, it := range items {
		if i > 0 && it.n == items[i-1].n {
			return Grammar{}, false
		}
		out.Choices = append(out.Choices, strconv.Itoa(it.n))
		out.Items = append(out.Items, it.text)
	}
	out.Default, out.Range = lineDefault(s.Lines[s.CursorY])
	return out, true
}
