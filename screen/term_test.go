package screen

import (
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"
)

func TestScreenTable(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		chunk   int      // write size; 0 means all at once
		rows    []string // expected leading rows (the rest must be empty)
		cx, cy  int
		alt     bool
		visible bool
	}{
		{"plain", "hello\r\nworld", 0, []string{"hello", "world"}, 5, 1, false, true},
		{"cr redraw", "45%\r100%", 0, []string{"100%"}, 4, 0, false, true},
		{"colours vanish", "\x1b[1;31mred\x1b[0m ok", 0, []string{"red ok"}, 6, 0, false, true},
		{"utf8 split in 1-byte writes", "héllo wörld € 中文 😀", 1, []string{"héllo wörld € 中文 😀"}, 21, 0, false, true},
		{"utf8 split in 2-byte writes", "€€€", 2, []string{"€€€"}, 3, 0, false, true},
		{"wide chars take two cells", "中文x\r\x1b[2CY", 0, []string{"中Y x"}, 3, 0, false, true},
		{"combining mark takes none", "e\u0301x", 0, []string{"ex"}, 2, 0, false, true},
		{"REP", "a\x1b[3b|\x1b[b", 0, []string{"aaaa||"}, 6, 0, false, true},
		{"REP wide", "中\x1b[2b", 0, []string{"中中中"}, 6, 0, false, true},
		{"leaving an alt screen never entered keeps the screen", "text\x1b[?1049l", 0, []string{"text"}, 4, 0, false, true},
		{"cup", "\x1b[3;5Hx", 0, []string{"", "", "    x"}, 5, 2, false, true},
		{"alt screen", "main\x1b[?1049h\x1b[Halt", 0, []string{"alt"}, 3, 0, true, true},
		{"alt screen left", "main\x1b[?1049h\x1b[Halt\x1b[?1049l", 0, []string{"main"}, 4, 0, false, true},
		{"hidden cursor", "\x1b[?25lx", 0, []string{"x"}, 1, 0, false, false},
		{"negative ICH dropped", "abc\x1b[1G\x1b[-1@\x1b[-1Pd", 0, []string{"dbc"}, 1, 0, false, true},
		{"huge CBT clamped", "abc\x1b[2147483647Zd", 0, []string{"dbc"}, 1, 0, false, true},
		{"huge CHT clamped", "a\x1b[100000000Ib", 0, []string{"a" + strings.Repeat(" ", 78) + "b"}, 79, 0, false, true},
		{"huge CUF clamped", "a\x1b[99999999999Cb", 0, []string{"a" + strings.Repeat(" ", 78) + "b"}, 79, 0, false, true},
		{"private > marker dropped", "\x1b[31m\x1b[>4;1mred", 0, []string{"red"}, 3, 0, false, true},
		{"OSC 133 swallowed", "\x1b]133;A\x07$ \x1b]133;B\x1b\\ls", 0, []string{"$ ls"}, 4, 0, false, true},
		{"unterminated OSC is cut", "\x1b]" + strings.Repeat("t", OSCCap) + "visible", 0, []string{"visible"}, 7, 0, false, true},
		{"unterminated OSC in chunks", "\x1b]" + strings.Repeat("t", OSCCap) + "visible", 100, []string{"visible"}, 7, 0, false, true},
		{"OSC ended by CSI", "\x1b]0;title\x1b[31mred", 0, []string{"red"}, 3, 0, false, true},
		{"SOS swallowed", "\x1bXsos\x1b\\ok", 0, []string{"ok"}, 2, 0, false, true},
		{"CSI split across writes", "ab\x1b[1;31mcd\x1b[2Ge", 1, []string{"aecd"}, 2, 0, false, true},
		{"long CSI dropped", "a\x1b[" + strings.Repeat("1;", 100) + "mb", 0, []string{"ab"}, 2, 0, false, true},
		{"invalid utf8 dropped", "a\xffb", 0, []string{"ab"}, 2, 0, false, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := New(80, 5)
			feed(s, tc.in, tc.chunk)
			snap := s.Snapshot()
			if snap.Cols != 80 || snap.Rows != 5 || len(snap.Lines) != 5 {
				t.Fatalf("size %dx%d, %d lines", snap.Cols, snap.Rows, len(snap.Lines))
			}
			want := append(append([]string{}, tc.rows...), make([]string, 5-len(tc.rows))...)
			if strings.Join(snap.Lines, "|") != strings.Join(want, "|") {
				t.Errorf("lines\n got %q\nwant %q", snap.Lines, want)
			}
			if snap.CursorX != tc.cx || snap.CursorY != tc.cy {
				t.Errorf("cursor %d,%d want %d,%d", snap.CursorX, snap.CursorY, tc.cx, tc.cy)
			}
			if snap.AltScreen != tc.alt || snap.CursorVisible != tc.visible || snap.Degraded {
				t.Errorf("alt=%v visible=%v degraded=%v", snap.AltScreen, snap.CursorVisible, snap.Degraded)
			}
		})
	}
}

func feed(s *Screen, in string, chunk int) {
	if chunk <= 0 {
		chunk = len(in) + 1
	}
	for i := 0; i < len(in); i += chunk {
		n, err := s.Write([]byte(in[i:min(i+chunk, len(in))]))
		if err != nil || n != min(chunk, len(in)-i) {
			panic("short write")
		}
	}
}

func TestScreenResize(t *testing.T) {
	s := New(0, 0)
	if snap := s.Snapshot(); snap.Cols != 80 || snap.Rows != 24 {
		t.Fatalf("default size %dx%d", snap.Cols, snap.Rows)
	}
	s.Write([]byte("0123456789"))
	s.Resize(5, 3)
	snap := s.Snapshot()
	if snap.Cols != 5 || snap.Rows != 3 || snap.Lines[0] != "01234" {
		t.Fatalf("after resize: %dx%d %q", snap.Cols, snap.Rows, snap.Lines)
	}
	s.Resize(1<<20, -1)
	if snap := s.Snapshot(); snap.Cols != MaxCols || snap.Rows != 24 {
		t.Fatalf("clamped size %dx%d", snap.Cols, snap.Rows)
	}
}

// TestScreenRecoversFromPanic forces a panic inside the guarded call and
// checks that the screen is usable and marked.
func TestScreenRecoversFromPanic(t *testing.T) {
	s := New(20, 3)
	s.Write([]byte("before"))
	s.mu.Lock()
	s.guard(func() { panic("boom") })
	s.mu.Unlock()
	s.Write([]byte("after"))
	snap := s.Snapshot()
	if !snap.Degraded || snap.Lines[0] != "after" {
		t.Fatalf("degraded=%v lines=%q", snap.Degraded, snap.Lines)
	}
}

// TestScreenStallsBounded feeds the sequences that stalled vt10x for seconds.
func TestScreenStallsBounded(t *testing.T) {
	s := New(120, 40)
	start := time.Now()
	for range 100 {
		s.Write([]byte("\x1b[2147483647Z\x1b[100000000I\x1b[9999999999@\x1b[99999999P\x1b[99999999L\x1b[99999999M\x1b[99999999S\x1b[99999999T"))
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("took %v", d)
	}
	if s.Snapshot().Degraded {
		t.Fatal("degraded")
	}
}

func TestScreenConcurrent(t *testing.T) {
	s := New(40, 10)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		for i := range 200 {
			s.Write([]byte("line \x1b[32mgreen\x1b[0m " + itoa(i) + "\r\n"))
		}
	}()
	go func() {
		defer wg.Done()
		for range 50 {
			s.Snapshot()
			s.Resize(40, 10)
		}
	}()
	wg.Wait()
}

// FuzzScreen: the sanitiser keeps vt10x from panicking (Degraded stays
// false), every snapshot is well formed, and nothing stalls.
func FuzzScreen(f *testing.F) {
	for _, tc := range cleanCases {
		if len(tc.in) < 2000 {
			f.Add([]byte(tc.in), uint8(3))
		}
	}
	f.Add([]byte("\x1b[-1@\x1b[-1P\x1b[2147483647Z\x1b[100000000I"), uint8(1))
	f.Fuzz(func(t *testing.T, in []byte, chunk uint8) {
		s := New(30, 6)
		n := int(chunk)%16 + 1
		for i := 0; i < len(in); i += n {
			s.Write(in[i:min(i+n, len(in))])
		}
		snap := s.Snapshot()
		if snap.Degraded {
			t.Fatalf("vt10x panicked on %q", in)
		}
		if len(snap.Lines) != snap.Rows || snap.Cols != 30 || snap.Rows != 6 {
			t.Fatalf("bad snapshot size: %+v", snap)
		}
		for _, l := range snap.Lines {
			if !utf8.ValidString(l) || utf8.RuneCountInString(l) > snap.Cols {
				t.Fatalf("bad line %q", l)
			}
		}
		if snap.CursorX < 0 || snap.CursorX >= snap.Cols || snap.CursorY < 0 || snap.CursorY >= snap.Rows {
			t.Fatalf("cursor out of range: %+v", snap)
		}
	})
}

// REP is expanded for vt10x, but never past a screenful: the result must be
// the same as printing all the characters.
func TestScreenREPBounded(t *testing.T) {
	for _, n := range []int{1, 7, 80, 81, 1919, 1920, 1921, 2000, 9999} {
		a, b := New(80, 24), New(80, 24)
		a.Write([]byte("\x1b[2;3Hab\x1b[" + strconv.Itoa(n) + "bc"))
		b.Write([]byte("\x1b[2;3Ha" + strings.Repeat("b", n+1) + "c"))
		if sa, sb := a.Snapshot(), b.Snapshot(); !slices.Equal(sa.Lines, sb.Lines) || sa.CursorX != sb.CursorX || sa.CursorY != sb.CursorY {
			t.Errorf("REP %d: got %q at %d,%d, want %q at %d,%d", n, sa.Lines, sa.CursorX, sa.CursorY, sb.Lines, sb.CursorX, sb.CursorY)
		}
	}
}
