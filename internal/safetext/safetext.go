// Package safetext makes text from a command line safe to print in a
// person's terminal or a log header: control characters become visible
// escapes, so a command cannot move the cursor, recolour, retitle or hide
// lines of a table or a log it appears in. It has no state.
package safetext

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Visible returns s with every C0 and C1 control, DEL, invalid UTF-8 byte
// and bidirectional-override character written as a Go escape (\x1b,
// \u009b, \u202e, \t, \n); the rest is left as it is.
func Visible(s string) string { return escape(s, false) }

// Lines is Visible for text shown as lines in a person's terminal (yieldshell
// logs and attach): line feeds and tabs are kept, every other control, C1
// code (U+0080 to U+009F, as UTF-8 too), DEL, invalid byte and
// bidirectional override is written as its escape, so what a program
// printed can neither query nor wipe, move, recolour or retitle the
// person's terminal.
func Lines(s string) string { return escape(s, true) }

func escape(s string, lines bool) string {
	i := strings.IndexFunc(s, func(r rune) bool { return unsafe(r) && !(lines && (r == '\n' || r == '\t')) })
	if i < 0 && utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for len(s) > 0 {
		r, size := utf8.DecodeRuneInString(s)
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[0])
		case lines && (r == '\n' || r == '\t'):
			b.WriteRune(r)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case unsafe(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[:size])
		}
		s = s[size:]
	}
	return b.String()
}

// unsafe reports whether r must not reach a terminal as it is: a C0 or C1
// control, DEL, or a character that reorders the text around it.
func unsafe(r rune) bool {
	switch {
	case r < 0x20, r >= 0x7f && r <= 0x9f:
		return true
	case r == 0x061c, r == 0x200e, r == 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}
