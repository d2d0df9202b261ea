package oldscreen

import "github.com/mattn/go-runewidth"

// Sanitizer exposes the old sanitizer to the differential fuzz target.
type Sanitizer struct{ z sanitizer }

func NewSanitizer(cols, rows int) *Sanitizer {
	s := &Sanitizer{}
	s.z.width = runewidth.Condition{StrictEmojiNeutral: true}
	s.z.cols, s.z.cells = cols, cols*rows
	return s
}

func (s *Sanitizer) Feed(dst, p []byte) []byte { return s.z.feed(dst, p) }
