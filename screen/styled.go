package screen

import "github.com/hinshun/vt10x"

// vt10x's cell attribute bits (unexported there; their values are fixed by
// its state.go: reverse, underline, bold, in that order from bit 0).
const (
	vtReverse   = 1 << 0
	vtUnderline = 1 << 1
	vtBold      = 1 << 2
)

// DefaultColor is a Look's FG or BG when the program set no colour.
const DefaultColor = -1

// Look is how a cell is drawn beyond its character: what tells a
// highlighted menu row from its neighbours.
type Look struct {
	Reverse   bool // reverse video (SGR 7); FG and BG are then as shown, swapped
	Bold      bool
	Underline bool
	// FG and BG are xterm colour numbers (0-255), 24-bit colours as
	// 0xRRGGBB + 256, or DefaultColor.
	FG, BG int32
}

// Styled is a Snapshot with the look of every character.
type Styled struct {
	Snapshot
	// Looks holds, per row, the look of each rune of Lines[y] (the same
	// length as []rune(Lines[y])).
	Looks [][]Look
}

// Styled returns what the screen shows now, with each character's look.
// It is Snapshot's twin: the same lines, cursor and modes.
func (s *Screen) Styled() Styled {
	s.mu.Lock()
	defer s.mu.Unlock()
	var st Styled
	s.guard(func() {
		t := s.term
		t.Lock()
		defer t.Unlock()
		cols, rows := t.Size()
		st.Cols, st.Rows = cols, rows
		st.Lines = make([]string, rows)
		st.Looks = make([][]Look, rows)
		for y := range rows {
			var line []rune
			var looks []Look
			prev := rune(0)
			for x := range cols {
				g := t.Cell(x, y)
				r, shown := s.shown(t, x, y, cols, g.Char, prev)
				prev = r
				if shown {
					line = append(line, r)
					looks = append(looks, lookOf(g))
				}
			}
			n := len(line)
			for n > 0 && line[n-1] == ' ' {
				n--
			}
			st.Lines[y], st.Looks[y] = string(line[:n]), looks[:n]
		}
		cur := t.Cursor()
		st.CursorX, st.CursorY = cur.X, cur.Y
		st.AltScreen = t.Mode()&vt10x.ModeAltScreen != 0
		st.CursorVisible = t.CursorVisible()
	})
	st.Degraded = s.panics > 0
	if st.Lines == nil {
		st.Cols, st.Rows = s.cols, s.rows
		st.Lines = make([]string, s.rows)
		st.Looks = make([][]Look, s.rows)
	}
	return st
}

func lookOf(g vt10x.Glyph) Look {
	return Look{
		Reverse:   g.Mode&vtReverse != 0,
		Bold:      g.Mode&vtBold != 0,
		Underline: g.Mode&vtUnderline != 0,
		FG:        color(g.FG, vt10x.DefaultFG, vt10x.DefaultBG),
		BG:        color(g.BG, vt10x.DefaultFG, vt10x.DefaultBG),
	}
}

// color maps a vt10x colour to a Look's: default colours (either one, as
// reverse video swaps them) become DefaultColor.
func color(c, defFG, defBG vt10x.Color) int32 {
	switch {
	case c == defFG || c == defBG:
		return DefaultColor
	case c < 256:
		return int32(c)
	}
	return int32(c&0xffffff) + 256
}
