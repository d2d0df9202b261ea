package screen

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// onlcr turns each LF into CR LF, as the terminal driver does to what a
// program writes (termios ONLCR, on by default), so the cases can be
// written with plain newlines.
func onlcr(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") }

// clean runs in through a fresh cleaner in one Write, then Close.
func clean(in string) string {
	c := NewCleaner(80)
	out := c.Write(nil, []byte(onlcr(in)))
	return string(c.Close(out))
}

// cleanChunks feeds the chunks in order, then Close.
func cleanChunks(chunks ...string) string {
	c := NewCleaner(80)
	var out []byte
	for _, ch := range chunks {
		out = c.Write(out, []byte(onlcr(ch)))
	}
	return string(c.Close(out))
}

type cleanCase struct {
	name, in, want string
}

func progressBar(n int) string {
	var b strings.Builder
	for i := 0; i <= n; i++ {
		pct := i * 100 / n
		b.WriteString("\r[")
		b.WriteString(strings.Repeat("#", pct/5))
		b.WriteString(strings.Repeat(" ", 20-pct/5))
		b.WriteString("] ")
		b.WriteString(itoa(pct))
		b.WriteString("%")
	}
	return b.String()
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var d []byte
	for ; n > 0; n /= 10 {
		d = append([]byte{byte('0' + n%10)}, d...)
	}
	return string(d)
}

var cleanCases = []cleanCase{
	// Plain text and line endings.
	{"empty", "", ""},
	{"plain line", "hello\n", "hello\n"},
	{"no trailing newline", "hello", "hello"},
	{"crlf", "a\r\nb\r\n", "a\nb\n"},
	{"lf only", "a\nb\n", "a\nb\n"},
	{"blank lines kept", "a\n\n\nb\n", "a\n\n\nb\n"},
	{"crlf blank lines", "a\r\n\r\n\r\nb\r\n", "a\n\n\nb\n"},
	{"trailing blanks trimmed", "abc   \n", "abc\n"},
	{"trailing blanks trimmed at close", "abc   ", "abc"},
	{"leading blanks kept", "   abc\n", "   abc\n"},
	{"vt and ff are line feeds without CR", "a\vb\fc\n", "a\n b\n  c\n"},
	{"lone cr at end", "abc\r", "abc"},
	{"cr overwrites", "abcdef\rXY\n", "XYcdef\n"},
	{"cr cr lf", "abc\r\r\n", "abc\n"},

	// Progress bars and spinners.
	{"progress bar 500 redraws", progressBar(500) + "\n", "[####################] 100%\n"},
	{"progress bar then text", progressBar(50) + "\r\ndone\n", "[####################] 100%\ndone\n"},
	{"npm style clear line redraw", "\r\x1b[Kfetch 1\r\x1b[Kfetch 22\r\x1b[Kfetch 3\n", "fetch 3\n"},
	{"cargo style redraw with 2K", "\x1b[2K\rBuilding [=>   ] 1/9\x1b[2K\rBuilding [===>] 9/9\x1b[2K\r   Finished\n", "   Finished\n"},
	{"shorter redraw without erase keeps tail", "100 files\r9 files\n", "9 fileses\n"},
	{"spinner with backspace", "working |\b/\b-\b\\\b|\bdone\n", "working done\n"},
	{"spinner then clear", "load |\b/\b-\b \n", "load\n"},
	{"backspace does not erase", "abc\b\n", "abc\n"},
	{"backspace overwrite", "abc\bX\n", "abX\n"},
	{"backspace at column 0", "\b\bab\n", "ab\n"},
	{"backspace space backspace", "abc\b \b\n", "ab\n"},
	{"pip curl style", "  0%|          |\r 50%|#####     |\r100%|##########|\n", "100%|##########|\n"},

	// Erase in line.
	{"EL0 default", "abcdef\r\x1b[Kxy\n", "xy\n"},
	{"EL0 explicit mid", "abcdef\x1b[3D\x1b[0K\n", "abc\n"},
	{"EL1", "abcdef\x1b[3D\x1b[1Kx\n", "   xef\n"},
	{"EL1 beyond text", "abc\x1b[10C\x1b[1K\n", "" + "\n"},
	{"EL2 keeps cursor", "abcdef\x1b[2Kxy\n", "      xy\n"},
	{"EL with private marker ignored", "abc\x1b[?2Kd\n", "abcd\n"},

	// Cursor movement on the line.
	{"CUF pads with spaces", "a\x1b[3Cb\n", "a   b\n"},
	{"CUF default 1", "a\x1b[Cb\n", "a b\n"},
	{"CUF zero means one", "a\x1b[0Cb\n", "a b\n"},
	{"CUB", "abcd\x1b[2DX\n", "abXd\n"},
	{"CUB past column 0", "abcd\x1b[99DX\n", "Xbcd\n"},
	{"CHA 1-based", "abcdef\x1b[3GX\n", "abXdef\n"},
	{"CHA default", "abcdef\x1b[GX\n", "Xbcdef\n"},
	{"HPA backquote", "abcdef\x1b[5`X\n", "abcdXf\n"},
	{"CHA clamped to cols", "ab\x1b[9999GX\n", "ab" + strings.Repeat(" ", 77) + "X\n"},
	{"HPR", "a\x1b[2ab\n", "a  b\n"},
	{"CUF huge clamped", "a\x1b[99999999999999999999C\rb\n", "b\n"},
	{"DCH", "abcdef\x1b[3G\x1b[2P\n", "abef\n"},
	{"DCH default", "abcdef\x1b[1G\x1b[P\n", "bcdef\n"},
	{"DCH past end", "abcdef\x1b[5G\x1b[99P\n", "abcd\n"},
	{"DCH beyond text", "ab\x1b[5G\x1b[3P\n", "ab\n"},
	{"ICH", "abcdef\x1b[3G\x1b[2@XY\n", "abXYcdef\n"},
	{"ICH default", "abc\x1b[1G\x1b[@\n", " abc\n"},
	{"ICH huge", "abc\x1b[2G\x1b[99999@Z\n", "aZ\n"},
	{"ECH", "abcdef\x1b[2G\x1b[3X\n", "a   ef\n"},
	{"ECH default", "abcdef\x1b[2G\x1b[X\n", "a cdef\n"},
	{"ECH past end", "abcdef\x1b[4G\x1b[99X\n", "abc\n"},
	{"CHT and CBT", "a\x1b[Ib\x1b[2Ic\x1b[2Zd\n", "a       b       d       c\n"},
	{"CBT on a stop", "a\x1b[Ib\x1b[2Ic\x1b[Zd\n", "a       b               d\n"},
	{"CBT at 0", "\x1b[Zab\n", "ab\n"},
	{"negative params ignored", "abc\x1b[-1@\x1b[-1Pd\n", "abcd\n"},

	// Tabs.
	{"tab expands", "a\tb\n", "a       b\n"},
	{"tab at stop", "12345678\tx\n", "12345678        x\n"},
	{"two tabs", "\t\tx\n", "                x\n"},
	{"trailing tab trimmed", "a\t\n", "a\n"},
	{"tab over text moves only", "abcdefghij\rx\ty\n", "xbcdefghyj\n"},

	// Escape sequences vanish.
	{"SGR colours", "\x1b[1;31mred\x1b[0m \x1b[38;5;208mor\x1b[38;2;1;2;3mrgb\x1b[m\n", "red orrgb\n"},
	{"SGR colon subparams", "\x1b[38:2::255:0:0mx\x1b[4:3my\n", "xy\n"},
	{"private CSI", "\x1b[?25l\x1b[>4;1ma\x1b[=5u\x1b[<1ub\x1b[?25h\n", "ab\n"},
	{"CSI with intermediate", "a\x1b[2 qb\x1b[0\"pc\x1b[!pd\n", "abcd\n"},
	{"ED 2 pushes the screen into the log", "a\x1b[2Jb\x1b[0Jc\n", "a\n bc\n"},
	{"DSR and DA queries vanish", "a\x1b[6n\x1b[c\x1b[>cb\n", "ab\n"},
	{"OSC title BEL", "\x1b]0;my title\x07hello\n", "hello\n"},
	{"OSC title ST", "\x1b]2;my title\x1b\\hello\n", "hello\n"},
	{"OSC 133 marks", "\x1b]133;A\x07$ \x1b]133;B\x07ls\r\n\x1b]133;C\x07out\r\n\x1b]133;D;0\x07", "$ ls\nout\n"},
	{"OSC 633 marks", "\x1b]633;A\x1b\\> \x1b]633;B\x1b\\x\r\n\x1b]633;E;echo hi;nonce\x1b\\\x1b]633;D;0\x1b\\", "> x\n"},
	{"OSC 7 cwd", "\x1b]7;file://host/tmp\x1b\\a\n", "a\n"},
	{"OSC 8 hyperlink", "\x1b]8;;https://example.com\x1b\\link\x1b]8;;\x1b\\\n", "link\n"},
	{"OSC with utf8 payload", "\x1b]0;héllo 中文\x07x\n", "x\n"},
	{"OSC ended by other escape", "\x1b]0;title\x1b[31mred\n", "red\n"},
	{"OSC cancelled by CAN", "\x1b]0;ti\x18tle\n", "tle\n"},
	{"OSC unterminated then lots of text",
		"\x1b]" + strings.Repeat("x", OSCCap) + strings.Repeat("line\n", 3),
		"line\nline\nline\n"},
	{"OSC unterminated resumes after cap",
		"\x1b]" + strings.Repeat("y", OSCCap-1) + "ABC\n",
		"BC\n"},
	{"OSC one byte short of the cap", "\x1b]" + strings.Repeat("y", OSCCap-1) + "\x07ABC\n", "ABC\n"},
	{"DCS", "\x1bP1$r0m\x1b\\a\x1bPq#0;2;0;0;0~~\x1b\\b\n", "ab\n"},
	{"DCS does not end at BEL", "\x1bPx\x07y\x1b\\z\n", "z\n"},
	{"APC SOS PM", "\x1b_Gf=24;AAAA\x1b\\a\x1bXsos\x1b\\b\x1b^pm\x1b\\c\n", "abc\n"},
	{"charset selects", "\x1b(Ba\x1b)0b\x1b(0c\x1b(B\x1b%Gd\x1b#8e\n", "ab␌de\n"},
	{"two byte escapes", "a\x1b=b\x1b>c\x1b6d\x1bHe\n", "abcde\n"},
	{"save restore on the line", "ab\x1b7cd\x1b8X\n", "abXd\n"},
	{"ESC ESC", "a\x1b\x1b[31mb\n", "ab\n"},
	{"C0 controls dropped", "a\x00b\x07c\x0ed\x0fe\x7ff\x01\x02\x03\x04\x05\x06g\x10\x11\x12\x13\x14\x15\x16\x17h\x19\x1c\x1d\x1e\x1fi\n", "abcdefghi\n"},
	{"CAN SUB in ground dropped", "a\x18b\x1ac\n", "abc\n"},
	{"CAN aborts CSI", "a\x1b[3\x18Cb\n", "aCb\n"},
	{"C0 inside CSI executes", "abc\x1b[\r2CX\n", "abX\n"},
	{"C1 via UTF-8 dropped", "a\u009b31mb\u0090c\n", "a31mbc\n"},
	{"ESC at end dropped", "abc\x1b", "abc"},
	{"unfinished CSI at end dropped", "abc\x1b[12;", "abc"},
	{"byte 0x80+ aborts CSI", "a\x1b[3\xc3\xa9b\n", "aéb\n"},
	{"RIS", "abc\x1bcdef\n", "abc\ndef\n"},
	{"IND and NEL", "a\x1bDb\x1bEc\n", "a\n b\nc\n"},

	// UTF-8.
	{"multi-byte", "héllo wörld € 中文 😀\n", "héllo wörld € 中文 😀\n"},
	{"wide chars are one cell", "中文xx\r日\n", "日文xx\n"},
	{"combining mark joins its character", "e\u0301x\rab\n", "ab\n"},
	{"combining mark kept", "e\u0301x\n", "e\u0301x\n"},
	{"utf8 overwrite ascii", "abc\ré\n", "ébc\n"},
	{"invalid byte", "a\xffb\n", "a\ufffdb\n"},
	{"truncated sequence mid stream", "a\xe2\x82b\n", "a\ufffd\ufffdb\n"},
	{"lone continuation", "\x80\x80x\n", "\ufffd\ufffdx\n"},
	{"overlong", "\xc0\xafx\n", "\ufffd\ufffdx\n"},
	{"surrogate", "\xed\xa0\x80x\n", "\ufffd\ufffd\ufffdx\n"},
	{"truncated at end", "ab\xe2\x82", "ab\ufffd\ufffd"},
	{"lead byte then escape", "a\xe2\x1b[31mb\n", "a\ufffdb\n"},
	{"replacement char passes", "\ufffd\n", "\ufffd\n"},

	// Vertical movement (eager: a line feed commits the rows above it, and
	// rows redrawn after that are logged again).
	{"cursor up redraw logged again", "a\nb\nc\n\x1b[3Ax\ny\nz\nd\n", "a\nb\nc\nx\ny\nz\nd\n"},
	{"cursor up at the top row stays", "abc\x1b[2Axyz\x1b[2Bdef\n", "abcxyz\n\n      def\n"},
	{"cursor up then CR back down", "abc\x1b[2Axyz\x1b[2B\rX\n", "abcxyz\n\nX\n"},
	{"docker style", "l1: wait\nl2: wait\n\x1b[2A\r\x1b[2Kl1: done\n\x1b[2Kl2: done\nall done\n", "l1: wait\nl2: wait\nl1: done\nl2: done\nall done\n"},
	{"CPL and CNL", "ab\x1b[Fzz\x1b[Ecd\n", "zz\ncd\n"},
	{"CPL CNL column 0", "x\nab\x1b[1Fzz\x1b[1Ec\n", "x\nzz\ncb\n"},
	{"reverse index scrolls down at the top", "ab\x1bMzz\x1bDc\n", "  zz\nab  c\n"},
	{"cursor down", "ab\x1b[2Bc\n", "ab\n\n  c\n"},
	{"CUP home overwrites", "abc\x1b[Hxy\n", "xyc\n"},
	{"CUP to a lower row", "abc\n\x1b[5;3Hxyz\n", "abc\n\n\n\n  xyz\n"},
	{"clear screen", "old\r\n\x1b[H\x1b[2J\x1b[3Jnew\r\n", "old\nnew\n"},
	{"repeated CUP no blank lines", "\x1b[H\x1b[H\x1b[1;1Hx\n", "x\n"},
	{"VPA keeps column", "abc\x1b[3dX\n", "abc\n\n   X\n"},
	{"status line save jump restore", "abc\x1b7\x1b[5;1HProgress: [ 20%]\x1b8def\n", "abcdef\n\n\n\nProgress: [ 20%]"},
	{"status line CSI s u", "abc\x1b[s\x1b[3;1Hstatus\x1b[udef\n", "abcdef\n\nstatus"},
	{"restore to a committed row", "abc\x1b7\nx\x1b8y\n", "abc\nabcy\nx"},
	{"save then up restore", "abc\x1b7\x1b[3Aoverdrawn\x1b8def\n", "abcdefrdrawn\n"},

	// Alternate screen.
	{"alt screen 1049", "$ vim\r\n\x1b[?1049h\x1b[Hlots of\r\nscreen\x1b[?1049l$ \n", "$ vim\n" + AltScreenNotice + "$\n"},
	{"alt screen 1047 keeps the cursor", "\x1b[?1047hhidden\x1b[?1047lshown\n", AltScreenNotice + "      shown\n"},
	{"alt screen 47", "\x1b[?47hhidden\x1b[?47l\rshown\n", AltScreenNotice + "shown\n"},
	{"alt screen with other modes", "\x1b[?1;1049hhidden\x1b[?1049;1lshown\n", AltScreenNotice + "shown\n"},
	{"alt screen commits pending line", "loading\x1b[?1049hx\x1b[?1049l", "loading\n" + AltScreenNotice},
	{"alt screen twice", "\x1b[?1049ha\x1b[?1049h\x1b[?1049lb\x1b[?1049hc\x1b[?1049l", AltScreenNotice + "b\n" + AltScreenNotice},
	{"alt screen hides OSC and utf8", "\x1b[?1049h\x1b]0;t\x07中\xff\x1b[?1049lok", AltScreenNotice + "ok"},
	{"alt exit without enter", "a\x1b[?1049lb\n", "ab\n"},
	{"RIS leaves alt", "\x1b[?1049hx\x1bcy\n", AltScreenNotice + "y\n"},

	// Long lines.
	{"long line cap", strings.Repeat("a", 8192+10) + "\n", strings.Repeat("a", 8192+10) + "\n"},
	{"long line wraps, CR redraws its last row", strings.Repeat("a", 163) + "\rb\n", strings.Repeat("a", 160) + "baa\n"},
}

func TestCleanerTable(t *testing.T) {
	seen := map[string]bool{}
	for _, tc := range cleanCases {
		if seen[tc.name] {
			t.Fatalf("duplicate case name %q", tc.name)
		}
		seen[tc.name] = true
		t.Run(tc.name, func(t *testing.T) {
			got := clean(tc.in)
			if got != tc.want {
				t.Errorf("clean(%q)\n got %q\nwant %q", short(tc.in), short(got), short(tc.want))
			}
		})
	}
}

func short(s string) string {
	if len(s) > 200 {
		return s[:100] + "..." + s[len(s)-100:]
	}
	return s
}

// splitInputs are the table inputs plus a few split-sensitive ones.
func splitInputs() []string {
	var in []string
	for _, tc := range cleanCases {
		if len(tc.in) <= 600 {
			in = append(in, tc.in)
		}
	}
	return append(in,
		"é€😀中\xe2\x82\xff\xf0\x9f\x98",
		"\x1b]133;A\x07\x1b]633;D;0\x1b\\",
		"a\xe2\x1b]0;\xe2\x82\x07b\xf0\x9f\x98\x80",
	)
}

func TestCleanerSplitInvariance(t *testing.T) {
	for _, in := range splitInputs() {
		want := clean(in)
		for i := 0; i <= len(in); i++ {
			if got := cleanChunks(in[:i], in[i:]); got != want {
				t.Fatalf("split %q at %d\n got %q\nwant %q", in, i, got, want)
			}
		}
		chunks := make([]string, len(in))
		for i := 0; i < len(in); i++ {
			chunks[i] = in[i : i+1]
		}
		if got := cleanChunks(chunks...); got != want {
			t.Fatalf("1-byte writes of %q\n got %q\nwant %q", in, got, want)
		}
	}
}

// TestCleanerSplitLong checks the caps across splits: OSC cap, string cap and
// line cap counted across writes.
func TestCleanerSplitLong(t *testing.T) {
	inputs := []string{
		"\x1b]0;" + strings.Repeat("x", OSCCap+5) + "after\n",
		"\x1bP" + strings.Repeat("x", StringCap+5) + "after\n",
		strings.Repeat("ab", 8192) + "\rX\n",
		progressBar(300) + "\n",
	}
	for _, in := range inputs {
		want := clean(in)
		for _, n := range []int{1, 2, 3, 7, 100, 4096} {
			var chunks []string
			for i := 0; i < len(in); i += n {
				chunks = append(chunks, in[i:min(i+n, len(in))])
			}
			if got := cleanChunks(chunks...); got != want {
				t.Fatalf("chunks of %d: got %q want %q", n, short(got), short(want))
			}
		}
	}
}

func TestCleanerAltScreenState(t *testing.T) {
	c := NewCleaner(0)
	if c.AltScreen() {
		t.Fatal("new cleaner in alt screen")
	}
	out := c.Write(nil, []byte("\x1b[?1049"))
	if c.AltScreen() || len(out) != 0 {
		t.Fatalf("half sequence: alt=%v out=%q", c.AltScreen(), out)
	}
	out = c.Write(out, []byte("hvim stuff"))
	if !c.AltScreen() || string(out) != AltScreenNotice {
		t.Fatalf("after enter: alt=%v out=%q", c.AltScreen(), out)
	}
	out = c.Flush(out)
	if string(out) != AltScreenNotice {
		t.Fatalf("flush in alt screen emitted %q", out)
	}
	out = c.Write(out, []byte("\x1b[?1049l"))
	if c.AltScreen() {
		t.Fatal("still in alt screen after leaving")
	}
}

// step is one action in a Flush scenario.
type step struct {
	write string
	flush bool
}

func run(steps ...step) []string {
	c := NewCleaner(80)
	var outs []string
	for _, s := range steps {
		var out []byte
		if s.flush {
			out = c.Flush(nil)
		} else {
			out = c.Write(nil, []byte(onlcr(s.write)))
		}
		outs = append(outs, string(out))
	}
	return append(outs, string(c.Close(nil)))
}

func w(s string) step { return step{write: s} }

var fl = step{flush: true}

func TestCleanerFlush(t *testing.T) {
	tests := []struct {
		name  string
		steps []step
		want  []string // output of each step, then of Close
	}{
		{"prompt keeps trailing space", []step{w("Name: "), fl}, []string{"", "Name: ", ""}},
		{"prompt by cursor move keeps space", []step{w("Name:\x1b[C"), fl}, []string{"", "Name: ", ""}},
		{"continue after flush", []step{w("Name: "), fl, w("bob\r\n")}, []string{"", "Name: ", "bob\n", ""}},
		{"flush twice emits once", []step{w("abc"), fl, fl}, []string{"", "abc", "", ""}},
		{"progress redraw after flush", []step{w("45%"), fl, w("\r100%\n")}, []string{"", "45%", "\n100%\n", ""}},
		{"identical redraw not a change", []step{w("45%"), fl, w("\r45%\n")}, []string{"", "45%", "\n", ""}},
		{"identical redraw with erase", []step{w("45%"), fl, w("\r\x1b[K45% more\n")}, []string{"", "45%", " more\n", ""}},
		{"erased line then LF", []step{w("45%"), fl, w("\r\x1b[K\n")}, []string{"", "45%", "\n", ""}},
		{"erased line then new text", []step{w("⠋ installing"), fl, w("\r\x1b[Kadded 5 packages\n")}, []string{"", "⠋ installing", "\nadded 5 packages\n", ""}},
		{"backspace edit after flush", []step{w("Name: bo"), fl, w("\b \b"), fl, w("x\r\n")}, []string{"", "Name: bo", "", "\nName: b", "x\n", ""}},
		{"redraw then close", []step{w("10%"), fl, w("\r20%")}, []string{"", "10%", "", "\n20%"}},
		{"flush each progress step", []step{w("\r1%"), fl, w("\r2%"), fl, w("\r3%"), fl, w("\n")},
			[]string{"", "1%", "", "\n2%", "", "\n3%", "\n", ""}},
		{"blanks past the cursor not flushed", []step{w("abc      \rab"), fl}, []string{"", "abc", ""}},
		{"zsh PROMPT_SP", []step{w("\x1b[1m\x1b[7m%\x1b[27m\x1b[1m\x1b[0m" + strings.Repeat(" ", 79) + "\r \r\x1b]133;A\x07$ "), fl, w("ls\r\n")},
			[]string{"", "$ ", "ls\n", ""}},
		{"blank line not flushed", []step{w("   "), fl, w("x\n")}, []string{"", "", "   x\n", ""}},
		{"flush then trailing blanks trimmed later", []step{w("$ "), fl, w("\n")}, []string{"", "$ ", "\n", ""}},
		{"flush partial utf8 held", []step{w("a\xe2\x82"), fl, w("\xac\n")}, []string{"", "a", "€\n", ""}},
		{"flush while above the live line", []step{w("a\nbc\x1b[1A"), fl, w("zz\x1b[1Bd\n")}, []string{"a\n", "bc", "  d\na zz\n", ""}},
		{"flush then alt screen", []step{w("$ vim"), fl, w("\x1b[?1049hx")}, []string{"", "$ vim", "\n" + AltScreenNotice, ""}},
		{"flush then CUP", []step{w("abc"), fl, w("\x1b[Hx\n")}, []string{"", "abc", "\nxbc\n", ""}},
		{"flush then wrapped line", []step{w("ab"), fl, w(strings.Repeat("c", 200))}, []string{"", "ab", "", strings.Repeat("c", 200)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := run(tc.steps...)
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

// TestCleanerFlushNeverLosesText flushes after every byte of many inputs: the
// concatenated log must still contain every visible line the unflushed log
// has, in order. It may hold extra intermediate states, and flushed lines may
// keep trailing blanks up to where the cursor was; an erased line is not
// logged as an empty one.
func TestCleanerFlushNeverLosesText(t *testing.T) {
	for _, in := range splitInputs() {
		want := clean(in)
		if slices.ContainsFunc(lines(want), func(l string) bool { return len(l) > 80 }) {
			continue // a redraw on a wrapped line's last row starts a new log line
		}
		c := NewCleaner(80)
		var out []byte
		in := onlcr(in)
		for i := range len(in) {
			out = c.Write(out, []byte(in[i:i+1]))
			out = c.Flush(out)
		}
		out = c.Close(out)
		if !utf8.Valid(out) {
			t.Fatalf("invalid UTF-8 for %q: %q", in, out)
		}
		if !subsequence(lines(want), lines(string(out))) {
			t.Errorf("flushed log of %q lost text\n got %q\nwant lines of %q", short(in), short(string(out)), short(want))
		}
	}
}

func lines(s string) []string {
	ls := strings.Split(s, "\n")
	for i, l := range ls {
		ls[i] = strings.TrimRight(l, " ")
	}
	return ls
}

// subsequence reports whether every non-empty line of want occurs in got, in
// order.
func subsequence(want, got []string) bool {
	j := 0
	for _, l := range want {
		if l == "" {
			continue
		}
		for j < len(got) && got[j] != l {
			j++
		}
		if j == len(got) {
			return false
		}
		j++
	}
	return true
}

func TestCleanerReuseAfterClose(t *testing.T) {
	c := NewCleaner(80)
	out := c.Write(nil, []byte("\x1b[?1049hx\x1b]0;t"))
	out = c.Close(out)
	out = c.Write(out, []byte("fresh\n"))
	if string(out) != AltScreenNotice+"fresh\n" || c.AltScreen() {
		t.Fatalf("got %q alt=%v", out, c.AltScreen())
	}
}

func TestCleanerAppendsToDst(t *testing.T) {
	c := NewCleaner(80)
	dst := []byte("prefix:")
	dst = c.Write(dst, []byte("a\r\nb"))
	dst = c.Flush(dst)
	if !bytes.Equal(dst, []byte("prefix:a\nb")) {
		t.Fatalf("got %q", dst)
	}
}

// TestCleanerNoAllocs pins that steady-state writes do not allocate.
func TestCleanerNoAllocs(t *testing.T) {
	data := []byte("\x1b[1;32mok\x1b[0m line of text é 中\r\n" + progressBar(20) + "\r\n")
	c := NewCleaner(80)
	dst := make([]byte, 0, 1<<16)
	for range 2 * defRows { // until every row of the ring has been used
		dst = c.Write(dst[:0], data)
	}
	allocs := testing.AllocsPerRun(100, func() {
		dst = c.Write(dst[:0], data)
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per Write", allocs)
	}
}

func TestCleanerLine(t *testing.T) {
	tests := []struct {
		in, line string
		atEnd    bool
	}{
		{"", "", true},
		{"done\n", "", true},
		{"out\nName: ", "Name: ", true},
		{"\x1b[1;32muser@host\x1b[0m:~$ ", "user@host:~$ ", true},
		{">>> 1+1\x1b[3D", ">>> 1+1", false},
		{"50%\r", "50%", false},
		{"abc\x1b[?1049h", "", false},
	}
	for _, tt := range tests {
		c := NewCleaner(80)
		c.Write(nil, []byte(onlcr(tt.in)))
		line, atEnd := c.Line()
		if line != tt.line || atEnd != tt.atEnd {
			t.Errorf("Line after %q = %q, %v; want %q, %v", tt.in, line, atEnd, tt.line, tt.atEnd)
		}
	}
}
