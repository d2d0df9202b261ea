package outlog

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

// everyByte is every byte value 0..255 once, in order.
func everyByte() []byte {
	b := make([]byte, 256)
	for i := range b {
		b[i] = byte(i)
	}
	return b
}

func TestIsBinary(t *testing.T) {
	elf := "\x7fELF\x02\x01\x01\x00" + strings.Repeat("\x00\x01\xfe", 30)
	for _, tc := range []struct {
		name string
		in   string
		want bool
	}{
		{"empty", "", false},
		{"text", "hello\nworld\n", false},
		{"a NUL", "abc\x00def", true},
		{"a NUL alone", "\x00", true},
		{"an executable", elf, true},
		{"every byte value", string(everyByte()), true},
		{"many multibyte characters", strings.Repeat("héllo wörld € 日本語 ", 20), false},
		{"emoji", strings.Repeat("🙂🚀", 40), false},
		{"a multibyte character cut at the end", strings.Repeat("€", 30) + "\xe2\x82", false},
		{"a few stray bytes in short text", "bad:\xff\xfe\xc3(end\n", false},
		{"a Latin-1 name in long text", strings.Repeat("plain ascii text ", 10) + "Jos\xe9\n", false},
		{"Latin-1 text", strings.Repeat("caf\xe9 na\xefve r\xe9sum\xe9 ", 8), false},
		{"mostly invalid", strings.Repeat("\xff\xfe\x80a", 30), true},
		{"short and invalid", "\xff\xfe\xfd", false},
		{"escape sequences", strings.Repeat("\x1b[31mred\x1b[0m\n", 10), false},
		{"a redrawing progress bar", strings.Repeat("\r\x1b[2K\x1b[32m███████▌   \x1b[0m 75%", 20), false},
		{"OSC and DEC private modes", strings.Repeat("\x1b]0;title\a\x1b[?1049h\x1b[H\x1b[2J\x1b(B\x1b)0", 10), false},
		{"C0 controls without NUL", strings.Repeat("\x01\x02\x03\x07\x08", 20), false},
	} {
		if got := IsBinary([]byte(tc.in)); got != tc.want {
			t.Errorf("%s: IsBinary = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// A Judge follows a stream chunk by chunk: binary sticks to the short
// pieces of a binary file, and text after it is text again.
func TestJudge(t *testing.T) {
	blob := bytes.Repeat(everyByte(), 4)
	for _, tc := range []struct {
		name   string
		chunks []string
		want   []bool
	}{
		{"text stays text", []string{"hello\n", "world", "\x1b[1mbold\x1b[0m\n"}, []bool{false, false, false}},
		{"binary then its printable run", []string{"\x00\x01\x02", string(blob[0x20:0x7f])}, []bool{true, true}},
		{"binary then a short piece of it", []string{string(blob[:300]), string(blob[300:310])}, []bool{true, true}},
		{"binary then its ASCII with controls", []string{string(blob[:300]), string(blob[0x01:0x7f])}, []bool{true, true}},
		{"binary then a line of text", []string{"\x7fELF\x00\x00", "done\n"}, []bool{true, false}},
		{"binary then a coloured line", []string{"\x00\xff", "\x1b[32mok\x1b[0m\r\n"}, []bool{true, false}},
		{"binary then a long text run", []string{"\x00", strings.Repeat("x", judgeTextRun)}, []bool{true, false}},
		{"binary then a C1 control line", []string{"\x00", "\u009b2J\n"}, []bool{true, true}},
		{"binary then invalid text line", []string{"\x00", "caf\xe9\n"}, []bool{true, true}},
		{"binary then multibyte line", []string{"\x00", "日本語\n"}, []bool{true, false}},
		{"empty chunks change nothing", []string{"\x00", "", "x"}, []bool{true, false, true}},
		{"a short line after binary, then a long one", []string{"\x00", "x", strings.Repeat("y", 600)}, []bool{true, true, false}},
		{"text, binary, text", []string{"before\n", "\x00\x01\x02\x03", "after\n"}, []bool{false, true, false}},
		{"a short invalid chunk in text", []string{"text ", "\xe9", " more\n"}, []bool{false, false, false}},
		// Issue 39 item 4: output binary only as a whole, written a few
		// bytes at a time, is binary once the window holds 64 bytes.
		{"short invalid chunks", slices.Repeat([]string{"\xff\xfe\x80a\xff\xfe\x80a\xff\xfe"}, 8), []bool{false, false, false, false, false, false, true, true}},
		{"short Latin-1 chunks", slices.Repeat([]string{"caf\xe9 "}, 20), slices.Repeat([]bool{false}, 20)},
		{"short invalid chunks after text", append([]string{strings.Repeat("text\n", 20)}, slices.Repeat([]string{"\xff\xfe\x80\xff"}, 8)...), []bool{false, false, false, false, false, true, true, true, true}},
	} {
		var j Judge
		for i, c := range tc.chunks {
			if got := j.Binary([]byte(c)); got != tc.want[i] {
				t.Errorf("%s: chunk %d (%.20q) binary = %v, want %v", tc.name, i, c, got, tc.want[i])
			}
		}
	}
}

// Cut splits a chunk that holds binary output at line ends, so that text
// read together with binary output stays text.
func TestJudgeCut(t *testing.T) {
	blob := string(bytes.Repeat(everyByte(), 2))
	for _, tc := range []struct {
		name  string
		state bool // the stream is binary already
		in    string
		want  []string // pieces; binary ones marked with a leading "B:"
	}{
		{"text is one piece", false, "one\ntwo\nthr", []string{"one\ntwo\nthr"}},
		{"ESC-heavy text is one piece", false, "\x1b[1;31merror\x1b[0m\r\n\x1b]0;t\a", []string{"\x1b[1;31merror\x1b[0m\r\n\x1b]0;t\a"}},
		{"binary alone", false, blob, []string{"B:" + blob}},
		{"text, binary, text", false, "before\n" + blob + "\nafter\n", []string{"before\n", "B:" + blob + "\n", "after\n"}},
		{"lines before binary", false, "a\nb\n\x7fELF\x00\x01", []string{"a\nb\n", "B:\x7fELF\x00\x01"}},
		{"a prompt after binary stays with it", false, "\x00\x01\n$ ", []string{"B:\x00\x01\n$ "}},
		{"a text line in binary state", true, "done\n\x00", []string{"done\n", "B:\x00"}},
		{"a short piece in binary state", true, "abc", []string{"B:abc"}},
		{"a line end a read began with", true, "\r\n\x0b\x0c", []string{"B:\r\n\x0b\x0c"}},
		{"controls and spaces only", true, "\a\b\t \r\n", []string{"B:\a\b\t \r\n"}},
		{"a multibyte line", true, "日本語 ✓\n", []string{"日本語 ✓\n"}},
		{"an unfinished character at the end", true, "caf\xc3", []string{"B:caf\xc3"}},
		{"an unfinished line after binary", false, "\x00\ncaf\xc3", []string{"B:\x00\ncaf\xc3"}},
		{"an unfinished character ends a text line", false, "\x00\ncaf\xc3\xa9\n\xe2\x82", []string{"B:\x00\n", "caf\xc3\xa9\n\xe2\x82"}},
	} {
		j := Judge{binary: tc.state}
		var got []string
		for b := []byte(tc.in); len(b) > 0; {
			n, bin := j.Cut(b)
			if n <= 0 || n > len(b) {
				t.Fatalf("%s: Cut = %d of %d", tc.name, n, len(b))
			}
			p := string(b[:n])
			if bin {
				p = "B:" + p
			}
			got = append(got, p)
			b = b[n:]
		}
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("%s: pieces %q, want %q", tc.name, got, tc.want)
		}
	}
}

// Binary parts are kept exactly, take positions like text, and text reads
// leave them out and list them.
func TestAppendBinary(t *testing.T) {
	l := New(1 << 20)
	blob := bytes.Repeat(everyByte(), 3)
	l.Append(Stdout, []byte("before\n"))
	l.AppendBinary(Stdout, blob)
	l.Append(Stderr, []byte("err\n"))
	l.AppendBinary(Stderr, []byte("\x00\x1b]52;c;aGk=\a"))
	l.Append(Stdout, []byte("after\n"))
	end := int64(7 + len(blob) + 4 + 13 + 6)
	if l.End() != end || l.Total(Stdout) != int64(7+len(blob)+6) {
		t.Fatalf("end %d total %d", l.End(), l.Total(Stdout))
	}
	wantParts := []Part{{7, 7 + 768, Stdout}, {7 + 768 + 4, 7 + 768 + 4 + 13, Stderr}}

	r := l.ReadFrom(0, 1<<20, Both)
	if string(r.Stdout) != "before\nafter\n" || string(r.Stderr) != "err\n" || r.Next != end {
		t.Errorf("ReadFrom: %q %q next %d", r.Stdout, r.Stderr, r.Next)
	}
	if !equalParts(r.Binary, wantParts) || r.BinaryBytes() != 768+13 {
		t.Errorf("ReadFrom parts %v", r.Binary)
	}
	raw := l.ReadRaw(0, 1<<20, Both)
	want := append(append([]byte("before\n"), blob...), "after\n"...)
	if !bytes.Equal(raw.Stdout, want) || string(raw.Stderr) != "err\n\x00\x1b]52;c;aGk=\a" || !equalParts(raw.Binary, wantParts) {
		t.Errorf("ReadRaw: %q %q %v", raw.Stdout, raw.Stderr, raw.Binary)
	}
	// Raw pages cut at any byte and put the blob together again.
	var got []byte
	for p := int64(7); p < 7+768; {
		r := l.ReadRaw(p, 100, Stdout)
		if len(r.Stdout) > 100 || r.Next <= p {
			t.Fatalf("raw page from %d: %d bytes next %d", p, len(r.Stdout), r.Next)
		}
		got = append(got, r.Stdout...)
		p = r.Next
	}
	if !bytes.Equal(got[:768], blob) {
		t.Errorf("paged raw read is not the blob")
	}
	// A text page inside a binary part advances with nothing to show.
	if r := l.ReadFrom(10, 1, Stdout); len(r.Stdout) != 0 || r.Next != 11 || !equalParts(r.Binary, []Part{{10, 11, Stdout}}) {
		t.Errorf("one-byte text page in binary: %q next %d %v", r.Stdout, r.Next, r.Binary)
	}
	if tr := l.ReadTailRaw(1<<20, Both); !bytes.Equal(tr.Stdout, want) || !equalParts(tr.Binary, wantParts) {
		t.Errorf("ReadTailRaw: %q %v", tr.Stdout, tr.Binary)
	}
	if htr, _ := l.HeadTailRaw(-1, 1<<20, Both); !bytes.Equal(htr.Stdout, want) || !equalParts(htr.Binary, wantParts) {
		t.Errorf("HeadTailRaw: %q %v", htr.Stdout, htr.Binary)
	}
	tail := l.ReadTail(1<<20, Both)
	if string(tail.Stdout) != "before\nafter\n" || len(tail.Binary) != 2 {
		t.Errorf("ReadTail: %q %v", tail.Stdout, tail.Binary)
	}
	ht, om := l.HeadTail(-1, 1<<20, Both)
	if om != nil || string(ht.Stdout) != "before\nafter\n" || len(ht.Binary) != 2 {
		t.Errorf("HeadTail: %q %v %v", ht.Stdout, ht.Binary, om)
	}
	for c := range l.Chunks(0) {
		if c.Binary != bytes.ContainsRune(c.Data, 0) {
			t.Errorf("chunk at %d: binary %v, %q", c.Pos, c.Binary, c.Data)
		}
	}
}

// The kept head and the ring's eviction keep binary parts binary.
func TestBinaryHeadAndEviction(t *testing.T) {
	l := New(4096)
	l.Append(Stdout, []byte("first line\n"))
	l.AppendBinary(Stdout, bytes.Repeat(everyByte(), 8)) // 2048
	// Past HeadSize:
	for range 2000 {
		l.Append(Stdout, []byte("0123456789abcdef\n"))
	}
	ht, om := l.HeadTail(-1, 1000, Both)
	if om == nil || !strings.HasPrefix(string(ht.Stdout), "first line\n") || bytes.IndexByte(ht.Stdout, 0) >= 0 {
		t.Fatalf("HeadTail: %q %+v", ht.Stdout, om)
	}
	if len(ht.Binary) != 1 || ht.Binary[0].From != 11 || ht.Binary[0].To > 11+2048 || ht.Binary[0].To != om.From {
		t.Errorf("head's binary part: %v", ht.Binary)
	}
	// The raw cut is the same, with the head's binary bytes in it.
	htr, omr := l.HeadTailRaw(-1, 1000, Both)
	if *omr != *om || htr.Next != ht.Next || int64(len(htr.Stdout)) != int64(len(ht.Stdout))+htr.BinaryBytes() ||
		!bytes.Contains(htr.Stdout, everyByte()[:200]) {
		t.Errorf("HeadTailRaw: %d bytes, omitted %+v; text %d bytes, omitted %+v", len(htr.Stdout), omr, len(ht.Stdout), om)
	}
	if l.Start() <= 11+2048 {
		t.Fatalf("the binary part should be evicted from the ring: start %d", l.Start())
	}
	r := l.ReadRaw(0, 100, Both)
	if !r.Evicted || r.Start != l.Start() {
		t.Errorf("raw read of evicted bytes: %+v", r)
	}
}

// Line scans do not look into binary parts, which end the line they
// interrupt.
func TestLineScanSkipsBinary(t *testing.T) {
	l := New(1 << 16)
	l.Append(Stdout, []byte("one\ntw"))
	l.AppendBinary(Stdout, []byte("o\nMATCH in binary\n\x00"))
	l.Append(Stdout, []byte("three\nfou"))
	var lines []string
	s := LineScan{Unfinished: true}
	s.Scan(l, func(b []byte) bool { lines = append(lines, string(b)); return false })
	if strings.Join(lines, "|") != "one|three|fou" {
		t.Errorf("lines: %q", lines)
	}
	s = LineScan{Needle: []byte("MATCH")}
	if s.Scan(l, func(b []byte) bool { return bytes.Contains(b, []byte("MATCH")) }) {
		t.Errorf("a needle matched in binary output")
	}
}

func equalParts(a, b []Part) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// What AppendBinary was given, ReadRaw returns byte for byte, and text
// reads never return.
func FuzzAppendBinary(f *testing.F) {
	f.Add([]byte("text\n"), []byte("\x00\x01\x1b]52;c;aGk=\a\x9b2J"), 64)
	f.Add([]byte(""), everyByte(), 7)
	f.Add([]byte("\xe2\x82"), []byte("\xac\x00"), 1)
	f.Fuzz(func(t *testing.T, text, bin []byte, limit int) {
		if len(bin) == 0 {
			return
		}
		limit = 1 + abs(limit)%1024
		l := New(1 << 16)
		l.Append(Stdout, text)
		l.AppendBinary(Stdout, bin)
		l.Append(Stdout, text)
		from := int64(len(text))
		var got []byte
		for p := from; p < from+int64(len(bin)); {
			r := l.ReadRaw(p, limit, Both)
			if r.Next <= p {
				t.Fatalf("no progress at %d", p)
			}
			got = append(got, r.Stdout...)
			p = r.Next
		}
		if !bytes.Equal(got[:len(bin)], bin) {
			t.Fatalf("raw %q, appended %q", got, bin)
		}
		r := l.ReadFrom(0, 1<<16, Both)
		if !bytes.Equal(r.Stdout, append(append([]byte(nil), text...), text...)) || r.BinaryBytes() != int64(len(bin)) {
			t.Fatalf("text read %q of %q, binary %d", r.Stdout, text, r.BinaryBytes())
		}
	})
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

func TestPlainText(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{"", true},
		{"ls -l\r\n\x1b[1mbold\x1b[0m\x1b]133;A\x07", true},
		{"caf\xc3\xa9", true},
		{"caf\xc3", true},     // é continues in the next read
		{"caf\xe2\x82", true}, // so does €
		{"caf\xc3x", false},   // not UTF-8
		{"\xa9 rest", false},  // a character's end: not text on its own
		{"a\x00b", false},     // NUL
		{"\x1b]133;A\xff\x07", false},
	} {
		if got := PlainText([]byte(tc.in)); got != tc.want {
			t.Errorf("PlainText(%q) = %v, want %v", tc.in, got, tc.want)
		}
		if PlainText([]byte(tc.in)) && IsBinary([]byte(tc.in)) {
			t.Errorf("%q: plain text but binary", tc.in)
		}
	}
}
