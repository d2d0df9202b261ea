package screen

import "testing"

// TestANSIRoundTrip: a styled screen redrawn through its ANSI text onto a
// second screen of the same size looks the same: characters, colours
// (palette and 24-bit), attributes and the cursor.
func TestANSIRoundTrip(t *testing.T) {
	a := New(30, 5)
	_, _ = a.Write([]byte("plain\r\n\x1b[1;31mred bold\x1b[0m \x1b[38;5;200mpink\x1b[0m\r\n\x1b[48;2;10;20;30mrgb bg\x1b[0m \x1b[7mrev\x1b[0m\r\n\x1b[4mu\x1b[0m\x1b[3;5H"))
	want := a.Styled()
	b := New(30, 5)
	_, _ = b.Write([]byte(want.ANSI()))
	got := b.Styled()
	for y := range want.Lines {
		if got.Lines[y] != want.Lines[y] {
			t.Errorf("row %d: %q, want %q", y, got.Lines[y], want.Lines[y])
			continue
		}
		for i := range want.Looks[y] {
			if got.Looks[y][i] != want.Looks[y][i] {
				t.Errorf("row %d col %d: %+v, want %+v", y, i, got.Looks[y][i], want.Looks[y][i])
			}
		}
	}
	if got.CursorX != want.CursorX || got.CursorY != want.CursorY || got.CursorVisible != want.CursorVisible {
		t.Errorf("cursor %d,%d %v; want %d,%d %v", got.CursorX, got.CursorY, got.CursorVisible, want.CursorX, want.CursorY, want.CursorVisible)
	}
}
