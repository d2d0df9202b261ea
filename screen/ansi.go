package screen

import (
	"strconv"
	"strings"
)

// ANSI is the screen as a terminal would redraw it: clear, every row with
// its colours and attributes, then the cursor where the program left it
// (hidden if it hid it). Fed to a terminal emulator of the same size
// (a browser terminal on a handover page), it shows what the program's
// terminal shows.
func (s Styled) ANSI() string {
	var b strings.Builder
	b.WriteString("\x1b[0m\x1b[?25l\x1b[H\x1b[2J")
	for y, line := range s.Lines {
		if line == "" {
			continue
		}
		b.WriteString("\x1b[" + strconv.Itoa(y+1) + ";1H")
		var looks []Look
		if y < len(s.Looks) {
			looks = s.Looks[y]
		}
		cur := Look{FG: DefaultColor, BG: DefaultColor}
		for i, r := range []rune(line) {
			l := Look{FG: DefaultColor, BG: DefaultColor}
			if i < len(looks) {
				l = looks[i]
			}
			if l != cur {
				b.WriteString(sgr(l))
				cur = l
			}
			if r < ' ' || r == 0x7f {
				r = ' ' // never a control character to the emulator
			}
			b.WriteRune(r)
		}
		b.WriteString("\x1b[0m")
	}
	b.WriteString("\x1b[" + strconv.Itoa(s.CursorY+1) + ";" + strconv.Itoa(s.CursorX+1) + "H")
	if s.CursorVisible {
		b.WriteString("\x1b[?25h")
	}
	return b.String()
}

// sgr is the Select Graphic Rendition sequence that draws l from a reset.
func sgr(l Look) string {
	p := []string{"0"}
	if l.Bold {
		p = append(p, "1")
	}
	if l.Underline {
		p = append(p, "4")
	}
	if l.Reverse {
		p = append(p, "7")
	}
	if l.FG != DefaultColor {
		p = append(p, colorParams(l.FG, 30, 90, 38)...)
	}
	if l.BG != DefaultColor {
		p = append(p, colorParams(l.BG, 40, 100, 48)...)
	}
	return "\x1b[" + strings.Join(p, ";") + "m"
}

// colorParams encodes a Look colour: base+n for the first 8, bright+n-8
// for the next 8, ext;5;n for the 256 palette, ext;2;r;g;b for 24-bit.
func colorParams(c int32, base, bright, ext int) []string {
	switch {
	case c < 8:
		return []string{strconv.Itoa(base + int(c))}
	case c < 16:
		return []string{strconv.Itoa(bright + int(c) - 8)}
	case c < 256:
		return []string{strconv.Itoa(ext), "5", strconv.Itoa(int(c))}
	}
	rgb := c - 256
	return []string{strconv.Itoa(ext), "2", strconv.Itoa(int(rgb >> 16 & 0xff)), strconv.Itoa(int(rgb >> 8 & 0xff)), strconv.Itoa(int(rgb & 0xff))}
}
