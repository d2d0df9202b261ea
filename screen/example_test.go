package screen_test

import (
	"fmt"

	"github.com/yieldshell/yieldshell/screen"
)

// A clean log from the raw bytes a program wrote to its terminal: colours,
// a progress line redrawn with carriage returns and a window title are
// gone; what a person saw stays.
func ExampleCleaner() {
	raw := "\x1b]0;build\x07\x1b[1;32mok\x1b[0m compiling\r\n" +
		"progress 10%\rprogress 50%\rprogress 100%\r\n" +
		"done\r\n"
	c := screen.NewCleaner(80)
	log := c.Write(nil, []byte(raw))
	log = c.Close(log)
	fmt.Print(string(log))
	// Output:
	// ok compiling
	// progress 100%
	// done
}

// A rendered screen: what a full-screen program shows, row by row, with
// the cursor where the program left it.
func ExampleScreen() {
	s := screen.New(20, 4)
	s.Write([]byte("\x1b[?1049h\x1b[2J\x1b[H top line\x1b[3;5Hmiddle\x1b[4;1H:q"))
	snap := s.Snapshot()
	for i, line := range snap.Lines {
		fmt.Printf("%d|%s|\n", i, line)
	}
	fmt.Println("cursor", snap.CursorY, snap.CursorX, "alt screen", snap.AltScreen)
	// Output:
	// 0| top line|
	// 1||
	// 2|    middle|
	// 3|:q|
	// cursor 3 2 alt screen true
}

// The look of each character tells a highlighted menu row from the rest.
func ExampleScreen_Styled() {
	s := screen.New(20, 3)
	s.Write([]byte("  apple\r\n\x1b[7m> pear\x1b[0m\r\n  plum"))
	st := s.Styled()
	for y, line := range st.Lines {
		if len(st.Looks[y]) > 0 && st.Looks[y][0].Reverse {
			fmt.Println("selected:", line)
		}
	}
	// Output:
	// selected: > pear
}

// Piped output keeps its colours but loses what could act on the reader's
// terminal: here a clipboard write (OSC 52) and a hyperlink.
func ExampleStripper() {
	var s screen.Stripper
	out := s.Write(nil, []byte("\x1b]52;c;ZWNobyBoaQ==\x07\x1b[31mred\x1b[0m \x1b]8;;https://example.com\x1b\\link\x1b]8;;\x1b\\\n"))
	out = s.Flush(out)
	fmt.Printf("%q\n", out)
	// Output:
	// "\x1b[31mred\x1b[0m link\n"
}
