package screen

import (
	"strings"
	"testing"
)

// term runs in (with ONLCR applied) through a deferred cleaner of the given
// size and returns what it committed while writing, what Pending shows
// then, and the log after Close.
func termRun(cols, rows int, in string) (during, pending, final string) {
	c := NewTerminal(cols, rows)
	out := c.Write(nil, []byte(onlcr(in)))
	during = string(out)
	pending = string(c.Pending(nil))
	return during, pending, string(c.Close(out))
}

func TestTerminalRows(t *testing.T) {
	tests := []struct {
		name                  string
		cols, rows            int
		in                    string
		during, pending, want string
	}{
		{"rows stay open until they scroll off", 20, 3, "a\nb\n", "", "a\nb\n", "a\nb\n"},
		{"scrolled off rows are committed", 20, 3, "a\nb\nc\nd\n", "a\nb\n", "c\nd\n", "a\nb\nc\nd\n"},
		{"multi-line progress: only the final state", 20, 5,
			"line1\nA: 0%\nB: 0%\n" + strings.Repeat("\x1b[2A\rA: 30%\x1b[K\nB: 35%\x1b[K\n", 3) + "done\n",
			"", "line1\nA: 30%\nB: 35%\ndone\n", "line1\nA: 30%\nB: 35%\ndone\n"},
		{"redraw above, then scroll", 20, 2, "x\ny\x1b[A\rX\n\nz\n", "X\ny\n", "z\n", "X\ny\nz\n"},
		{"long line wraps and is one log line", 10, 3, strings.Repeat("a", 25) + "\n", strings.Repeat("a", 10), strings.Repeat("a", 15) + "\n", strings.Repeat("a", 25) + "\n"},
		{"wrapped line scrolls off whole", 10, 2, strings.Repeat("a", 25) + "\nb\n", strings.Repeat("a", 25) + "\n", "b\n", strings.Repeat("a", 25) + "\nb\n"},
		{"scroll region from the top commits", 20, 4, "\x1b[1;3r\x1b[4;1Hstatus\x1b[3;1Ha\nb\nc\n", "\n\na\n", "b\nc\n\nstatus", "\n\na\nb\nc\n\nstatus"},
		{"scroll region lower down: rows leaving it come first, as in tmux", 20, 4, "top\x1b[2;3r\x1b[3;1Ha\nb\nc\n", "\na\nb\n", "top\nc\n", "\na\nb\ntop\nc\n"},
		{"insert line", 20, 4, "a\nc\x1b[A\x1b[L\rb\x1b[3;1H", "", "b\na\nc", "b\na\nc"},
		{"delete line", 20, 4, "a\nx\nb\x1b[A\x1b[M\x1b[3;1H", "", "a\nb\n", "a\nb\n"},
		{"clear pushes the screen up", 20, 4, "old\n\x1b[2J\x1b[Hnew\n", "old\n", "new\n", "old\nnew\n"},
		{"erase below", 20, 4, "a\nb\nc\x1b[2;1H\x1b[J", "", "a\n", "a\n"},
		{"erase above", 20, 4, "a\nb\nc\x1b[2;1H\x1b[1J", "", "\n\nc", "\n\nc"},
		{"origin mode positions in the region", 20, 4, "\x1b[2;3r\x1b[?6h\x1b[1;1Hx\x1b[?6l", "", "\nx", "\nx"},
		{"REP", 20, 3, "a\x1b[3b|\n", "", "aaaa|\n", "aaaa|\n"},
		{"REP wide", 20, 3, "中\x1b[2b|\n", "", "中中中|\n", "中中中|\n"},
		{"wide chars take two cells", 20, 3, "中文xx\r日\n", "", "日文xx\n", "日文xx\n"},
		{"CUB over wide chars", 20, 3, "中文x\x1b[3DY\n", "", "中Y x\n", "中Y x\n"},
		{"wide char wraps early", 5, 3, "abcd中\n", "", "abcd中\n", "abcd中\n"},
		{"emoji is wide", 20, 3, "😀x\r\x1b[2CY\n", "", "😀Y\n", "😀Y\n"},
		{"combining mark takes no cell", 20, 3, "e\u0301x\x1b[DY\n", "", "e\u0301Y\n", "e\u0301Y\n"},
		{"DEC line drawing", 20, 3, "\x1b(0lqk\x1b(Bx\n", "", "┌─┐x\n", "┌─┐x\n"},
		{"tab stops set and cleared", 30, 3, "\x1b[3g\x1b[5G\x1bH\r\tx\n", "", "    x\n", "    x\n"},
		{"insert mode", 20, 3, "abc\r\x1b[4hX\x1b[4l\n", "", "Xabc\n", "Xabc\n"},
		{"no autowrap", 5, 3, "\x1b[?7labcdefg\n", "", "abcdg\n", "abcdg\n"},
		{"alt screen keeps the normal screen", 20, 4, "a\nb\x1b[?1049h\x1b[Hzz\x1b[?1049l\n", "a\nb\n" + AltScreenNotice, "", "a\nb\n" + AltScreenNotice},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			during, pending, final := termRun(tc.cols, tc.rows, tc.in)
			if during != tc.during || pending != tc.pending || final != tc.want {
				t.Errorf("%q\n during %q want %q\npending %q want %q\n  final %q want %q", tc.in, during, tc.during, pending, tc.pending, final, tc.want)
			}
		})
	}
}

// TestTerminalCommit pins the policy around Commit: what was committed
// stays, text written later on the same row continues it, a redrawn row is
// logged again, and Pending never commits.
func TestTerminalCommit(t *testing.T) {
	c := NewTerminal(20, 5)
	var log []byte
	write := func(s string) { log = c.Write(log, []byte(s)) }
	write("A: 10%\r\nB: 20%\r\n$ ")
	if p := string(c.Pending(nil)); p != "A: 10%\nB: 20%\n$ " {
		t.Fatalf("pending = %q", p)
	}
	if len(log) != 0 {
		t.Fatalf("committed before Commit: %q", log)
	}
	log = c.Commit(log)
	if string(log) != "A: 10%\nB: 20%\n$ " {
		t.Fatalf("after Commit: %q", log)
	}
	if p := string(c.Pending(nil)); p != "" {
		t.Fatalf("pending after Commit = %q", p)
	}
	write("ls\r\n")
	write("\x1b[3A\rA: 99%\x1b[K\x1b[3B\r")
	if p := string(c.Pending(nil)); p != "ls\nA: 99%\n" {
		t.Fatalf("pending after redraw = %q", p)
	}
	log = c.Commit(log)
	if string(log) != "A: 10%\nB: 20%\n$ ls\nA: 99%\n" {
		t.Fatalf("after redraw and Commit: %q", log)
	}
	log = c.Close(log)
	if string(log) != "A: 10%\nB: 20%\n$ ls\nA: 99%\n" {
		t.Fatalf("after Close: %q", log)
	}
}

func TestTerminalBounded(t *testing.T) {
	c := NewTerminal(1<<20, 1<<20)
	if c.cols != MaxCols || c.rows != MaxRows {
		t.Fatalf("size %dx%d", c.cols, c.rows)
	}
	c = NewTerminal(10, 3)
	c.Write(nil, []byte("\x1b[9999;9999H\x1b[9999b\x1b[9999@\x1b[9999L\x1b[9999r\x1b[9999S"))
	for y := range c.rows {
		if n := len(c.row(y).cells); n > c.cols {
			t.Fatalf("row %d has %d cells", y, n)
		}
	}
	var zalgo strings.Builder
	zalgo.WriteString("e")
	for range 1000 {
		zalgo.WriteString("\u0301")
	}
	c.Write(nil, []byte(zalgo.String()))
	if len(c.clusters) > maxClusters {
		t.Fatalf("%d clusters", len(c.clusters))
	}
}

func TestTerminalResize(t *testing.T) {
	c := NewTerminal(10, 5)
	log := c.Write(nil, []byte("1\r\n2\r\n3\r\n4\r\n5abcdefgh"))
	log = c.Resize(log, 6, 3) // the cursor's row stays; two rows go up
	if string(log) != "1\n2\n" {
		t.Fatalf("resize committed %q", log)
	}
	if c.cx != 5 || c.cy != 2 {
		t.Fatalf("cursor %d,%d", c.cx, c.cy)
	}
	log = c.Write(log, []byte("\r\nx"))
	if got := string(c.Close(log)); got != "1\n2\n3\n4\n5abcde\nx" {
		t.Fatalf("log %q", got)
	}
}
