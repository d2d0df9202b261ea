//go:build unix

package session

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"unicode/utf8"
)

// hostileBlob is binary output that carries what the escape filter exists
// for: a clipboard write (OSC 52), a screen clear, a hyperlink (OSC 8) and
// an 8-bit CSI, between every byte value 0..255, repeated. It ends in 0xff.
func hostileBlob() []byte {
	var b []byte
	for i := range 16 {
		for c := range 256 {
			b = append(b, byte(c))
		}
		switch i % 4 {
		case 0:
			b = append(b, "\x1b]52;c;aGVsbG8=\a"...)
		case 1:
			b = append(b, "\x1b[2J\x1b[H"...)
		case 2:
			b = append(b, "\x1b]8;;https://evil.example/\x1b\\link\x1b]8;;\x1b\\"...)
		case 3:
			b = append(b, "\x9b2J\x9d0;title\x9c"...)
		}
	}
	return append(b, 0xff)
}

// noControls fails if text (what an answer shows) holds an escape, a C1
// control in either form, a NUL, or what hostileBlob's sequences carry.
func noControls(t *testing.T, what string, text []byte) {
	t.Helper()
	for _, bad := range []string{"\x1b", "\x00", "aGVsbG8", "evil.example"} {
		if bytes.Contains(text, []byte(bad)) {
			t.Errorf("%s shows %q: %q", what, bad, text)
		}
	}
	if c, ok := c1Control(text); ok {
		t.Errorf("%s shows the C1 control %#x: %q", what, c, text)
	}
}

// c1Control returns the first C1 control in b, as a byte 0x80-0x9f that
// is not part of a character or as U+0080-U+009F.
func c1Control(b []byte) (rune, bool) {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 && b[i] >= 0x80 && b[i] <= 0x9f {
			return rune(b[i]), true
		}
		if r >= 0x80 && r <= 0x9f {
			return r, true
		}
		i += n
	}
	return 0, false
}

// Spec: issue 34 item 3: binary output "is still stored losslessly".
// Text, then binary output, then text, each written on its own: the text
// reads show the text and list the binary part; Raw returns the binary
// output byte for byte, in both modes (the fake terminal does no output
// processing, see TestBinaryRealPrograms for a real one).
func TestBinaryStoredExactly(t *testing.T) {
	blob := hostileBlob()
	for _, tty := range []bool{false, true} {
		synctest.Test(t, func(t *testing.T) {
			m, e, _ := fakeManager(t, nil, nil)
			p, f := startFake(t, m, e, spec("cat blob", tty))
			defer f.exit(0)
			f.print("before\r\n")
			synctest.Wait()
			from := p.LogEnd()
			f.print(string(blob))
			synctest.Wait()
			f.print("after\r\n")
			synctest.Wait()
			zero := int64(0)
			s := p.Snapshot(Query{Since: &zero, MaxBytes: 1 << 20, Streams: Both})
			text := strings.ReplaceAll(string(s.Stdout), "\r", "")
			if text != "before\nafter\n" {
				t.Errorf("tty=%v: text %q", tty, s.Stdout)
			}
			noControls(t, "the text read", s.Stdout)
			if len(s.Binary) != 1 || s.Binary[0].From != from || s.Binary[0].To-from != int64(len(blob)) {
				t.Fatalf("tty=%v: binary parts %v, want one of %d bytes from %d", tty, s.Binary, len(blob), from)
			}
			raw := p.Raw(from, len(blob), Both)
			if !bytes.Equal(raw.Stdout, blob) || raw.NextSeq != from+int64(len(blob)) {
				t.Errorf("tty=%v: Raw returned %d bytes (next %d), not the %d written", tty, len(raw.Stdout), raw.NextSeq, len(blob))
			}
			// Nothing binary is on the screen or in the screen's text.
			if sc := p.Snapshot(Query{Screen: true, Streams: Both}).Screen; sc != nil {
				noControls(t, "the screen", []byte(strings.Join(sc.Lines, "\n")))
			}
		})
	}
}

// A hostile program cannot join text around its binary output into an
// escape sequence: an ESC the pipe-mode filter held back at the end of
// text goes with the binary output, not into the text.
func TestBinaryDoesNotJoinTextIntoEscapes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m, e, _ := fakeManager(t, nil, nil)
		p, f := startFake(t, m, e, spec("hostile", false))
		defer f.exit(0)
		f.print("x\x1b")
		synctest.Wait()
		f.print("\x00\x01\x02\x03")
		synctest.Wait()
		f.print("]52;c;aGVsbG8=\a\n")
		synctest.Wait()
		zero := int64(0)
		s := p.Snapshot(Query{Since: &zero, MaxBytes: 1 << 20, Streams: Both})
		if bytes.Contains(s.Stdout, []byte("\x1b")) {
			t.Errorf("text read %q", s.Stdout)
		}
		raw := p.Raw(0, 1<<20, Both)
		if !bytes.HasPrefix(raw.Stdout, []byte("x\x1b\x00\x01\x02\x03")) {
			t.Errorf("raw %q", raw.Stdout)
		}
	})
}

// everyByteFile writes every byte value 0..255, n times, to a file.
func everyByteFile(t *testing.T, n int) (string, []byte) {
	var b []byte
	for range n {
		for c := range 256 {
			b = append(b, byte(c))
		}
	}
	path := filepath.Join(t.TempDir(), "blob")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path, b
}

// Real programs through real pipes and a real terminal. In pipe mode the
// log has the file's bytes. In PTY mode it has what the terminal gave us:
// its output processing turns each \n into \r\n (onlcr), unless the
// program sets the terminal raw first (stty raw): then the file's bytes.
func TestBinaryRealPrograms(t *testing.T) {
	m := newTestManager(t, nil)
	path, blob := everyByteFile(t, 64)
	cooked := bytes.ReplaceAll(blob, []byte("\n"), []byte("\r\n"))
	for _, tc := range []struct {
		name string
		cmd  string
		tty  bool
		want []byte
	}{
		{"pipes", "cat " + path, false, blob},
		{"pty raw", "stty raw -echo; cat " + path, true, blob},
		{"pty cooked", "cat " + path, true, cooked},
	} {
		p, info, out := run(t, m, spec(tc.cmd, tc.tty))
		var n int64
		for _, part := range out.Binary {
			n += part.To - part.From
		}
		if n != int64(len(tc.want)) || len(out.Binary) != 1 {
			t.Errorf("%s: binary parts %v (%d bytes), want %d bytes; text %q", tc.name, out.Binary, n, len(tc.want), out.Stdout)
			continue
		}
		noControls(t, tc.name+": text", out.Stdout)
		raw := p.Raw(out.Binary[0].From, len(tc.want), Both)
		if !bytes.Equal(raw.Stdout, tc.want) {
			i := 0
			for i < min(len(raw.Stdout), len(tc.want)) && raw.Stdout[i] == tc.want[i] {
				i++
			}
			t.Errorf("%s: stored bytes differ from byte %d (%d stored, %d written)", tc.name, i, len(raw.Stdout), len(tc.want))
		}
		if info.StdoutBytes < int64(len(tc.want)) {
			t.Errorf("%s: %d bytes of stdout counted", tc.name, info.StdoutBytes)
		}
	}
}

// The log file is for people to follow in a terminal: it notes binary
// output instead of holding it, and keeps the text around it.
func TestBinaryDiskLog(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "logs")
	m := newTestManager(t, map[string]string{"YIELDSHELL_LOG_DIR": dir})
	path, blob := everyByteFile(t, 16)
	p, _, _ := run(t, m, named(`echo before; cat `+path+`; printf '\nafter\n'`, "bin"))
	m.Shutdown(t.Context()) // joins the writers
	b, err := os.ReadFile(m.LogPath(p))
	if err != nil {
		t.Fatal(err)
	}
	noControls(t, "the log file", b)
	if !strings.Contains(string(b), "before\n[binary output: ") || !strings.Contains(string(b), "\nafter\n") {
		t.Errorf("log file:\n%s", b)
	}
	// In PTY mode (named's default), \n reached us as \r\n; the
	// newline printed after the blob may come with it. A note per read of
	// the log.
	noted := 0
	for _, line := range strings.Split(string(b), "\n") {
		var n, from, to int
		if _, err := fmt.Sscanf(line, "[binary output: %d bytes at seq %d-%d,", &n, &from, &to); err == nil && n == to-from {
			noted += n
		}
	}
	if want := len(blob) + bytes.Count(blob, []byte("\n")); noted != want && noted != want+2 {
		t.Errorf("the notes count %d bytes, want %d:\n%s", noted, want, b)
	}
}

// FuzzBinaryStored feeds output, cut into reads by plan, through a
// reader's path (redactor, mark scanner, judge, filter, log) in either
// mode, and checks: every binary part the log stores is the program's
// bytes exactly, in the order written; every NUL written is in one (a NUL
// is never text); and the text reads show no NUL, no control string and
// no C1 control. The output has no secrets and no shell-integration marks,
// which are taken out before (covered by FuzzOutputPath).
func FuzzBinaryStored(f *testing.F) {
	f.Add(hostileBlob(), []byte{0x3f, 0x10, 0x01, 0x3f}, false)
	f.Add(hostileBlob(), []byte{0x07, 0x3f, 0x21}, true)
	f.Add([]byte("before\n\x7fELF\x02\x01\x01\x00\x00\x00\nafter\n"), []byte{0x06, 0x0a, 0x3f}, false)
	f.Add([]byte("x\x1b\x00\x01]52;c;aGk=\a\n\xe2\x82\x00\xac"), []byte{0x01, 0x01, 0x03, 0x3f}, false)
	f.Add([]byte("\x1b[31mred\x1b[0m\r\n\x00\x01\x02\r\n\x1b]8;;http://e/\x1b\\l\x1b]8;;\x1b\\\r\n"), []byte{0x0c, 0x05, 0x3f}, true)
	f.Fuzz(func(t *testing.T, data, plan []byte, tty bool) {
		if bytes.Contains(data, []byte("133;")) || bytes.Contains(data, []byte("633;")) {
			return // a mark, which the scanner takes out
		}
		p := newFuzzProcess(1<<20, 80, 24)
		if !tty {
			p.TTY = false
			p.out = pipeline{secrets: newSecretList(nil)}
		}
		sr := newStreamReader(Stdout, tty, newSecretList(nil))
		rest := data
		for i := 0; len(rest) > 0; i++ {
			n := len(rest)
			if i < len(plan) {
				n = min(n, int(plan[i]&0x3f)+1)
			}
			sr.take(rest[:n])
			rest = rest[n:]
			p.mu.Lock()
			p.appendLocked(sr, false)
			p.mu.Unlock()
		}
		sr.flush()
		p.mu.Lock()
		p.appendLocked(sr, true)
		p.mu.Unlock()

		zero := int64(0)
		s := p.Snapshot(Query{Since: &zero, MaxBytes: 1 << 20, Streams: Both})
		for _, bad := range []string{"\x00", "\x1b]", "\x1bP", "\x1b_"} {
			if bytes.Contains(s.Stdout, []byte(bad)) {
				t.Fatalf("tty=%v: text read shows %q: %q", tty, bad, s.Stdout)
			}
		}
		if c, ok := c1Control(s.Stdout); ok {
			t.Fatalf("tty=%v: text read shows the C1 control %#x: %q", tty, c, s.Stdout)
		}
		at, nuls := 0, 0
		for _, part := range s.Binary {
			raw := p.Raw(part.From, int(part.To-part.From), Both).Stdout
			if int64(len(raw)) != part.To-part.From {
				t.Fatalf("part %v: %d bytes stored", part, len(raw))
			}
			i := bytes.Index(data[at:], raw)
			if i < 0 {
				t.Fatalf("tty=%v: binary part %v %q is not what was written after byte %d of %q", tty, part, raw, at, data)
			}
			at += i + len(raw)
			nuls += bytes.Count(raw, []byte{0})
		}
		if want := bytes.Count(data, []byte{0}); nuls != want {
			t.Fatalf("tty=%v: %d NULs written, %d stored as binary", tty, want, nuls)
		}
	})
}

// Without a NUL, a chunk that is mostly not UTF-8 is binary, and text with
// many multibyte characters is not, in both modes (pipe mode counts the
// bytes as its filter passes them, see stripText).
func TestBinaryByInvalidShare(t *testing.T) {
	invalid := strings.Repeat("\xff\xfe\x80a", 30)
	multibyte := strings.Repeat("héllo wörld € 日本語 ", 10) + "end\n"
	for _, tty := range []bool{false, true} {
		synctest.Test(t, func(t *testing.T) {
			m, e, _ := fakeManager(t, nil, nil)
			p, f := startFake(t, m, e, spec("latin", tty))
			defer f.exit(0)
			f.print(multibyte)
			synctest.Wait()
			from := p.LogEnd()
			f.print(invalid)
			synctest.Wait()
			zero := int64(0)
			s := p.Snapshot(Query{Since: &zero, MaxBytes: 1 << 20, Streams: Both})
			if got := strings.ReplaceAll(string(s.Stdout), "\r", ""); got != multibyte {
				t.Errorf("tty=%v: text %q", tty, s.Stdout)
			}
			if len(s.Binary) != 1 || s.Binary[0].From != from {
				t.Fatalf("tty=%v: binary parts %v", tty, s.Binary)
			}
			if raw := p.Raw(from, 1<<20, Both); string(raw.Stdout) != invalid {
				t.Errorf("tty=%v: raw %q", tty, raw.Stdout)
			}
		})
	}
}

// An integrated shell's prompt after a command's binary output is text:
// its marks (command end, prompt start) end the binary output, though the
// prompt has no line end.
func TestBinaryEndsAtShellMarks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m, e, _ := fakeManager(t, nil, nil)
		p, f := startFake(t, m, e, spec("bash", true))
		defer f.exit(0)
		f.print("\x1b]133;C\a\x00\x01\x02\x7fELF\x00")
		synctest.Wait()
		f.print("\x1b]133;D;0\a\x1b]133;A\auser@host:~$ \x1b]133;B\a")
		synctest.Wait()
		s := p.Snapshot(Query{Streams: Both, MaxBytes: 1 << 20})
		if !strings.HasSuffix(string(s.Stdout), "user@host:~$ ") || len(s.Binary) != 1 || s.Binary[0].To-s.Binary[0].From != 8 {
			t.Errorf("text %q, binary parts %v", s.Stdout, s.Binary)
		}
	})
}

// In PTY mode the terminal cleaner reads an integrated shell's marks
// itself in a turn of plain text, and the reader's scanner in the others;
// however the output is split between reads, and so between the two, the
// log and the commands' exit codes come out the same.
func TestTerminalMarksAnySplit(t *testing.T) {
	const out = "\x1b]133;C\acafé\r\n\x1b]133;D;3\a\x1b]633;A\x1b\\user@host:~$ \x1b]133;B\a"
	for split := range len(out) + 1 {
		synctest.Test(t, func(t *testing.T) {
			m, e, _ := fakeManager(t, nil, nil)
			p, f := startFake(t, m, e, spec("bash", true))
			defer f.exit(0)
			f.print(out[:split])
			synctest.Wait()
			f.print(out[split:])
			synctest.Wait()
			s := p.Snapshot(Query{Streams: Both, MaxBytes: 1 << 20})
			if string(s.Stdout) != "café\nuser@host:~$ " || !slices.Equal(s.CommandExits, []int{3}) {
				t.Errorf("split at %d: log %q, exit codes %v", split, s.Stdout, s.CommandExits)
			}
		})
	}
}

// Issue 39 item 4: output that is binary only as a whole, written a few
// bytes at a time (each read too short to tell on its own), is stored as
// binary by the reader, which judges a short read with the text before
// it; the answers follow the log's parts and judge nothing again. What
// came before the reads were enough to tell stays text.
func TestBinaryAcrossShortReads(t *testing.T) {
	piece := "\xff\xfe\x80a\xff\xfe\x80a\xff\xfe" // 10 bytes, 8 of them not UTF-8
	for _, tty := range []bool{false, true} {
		synctest.Test(t, func(t *testing.T) {
			m, e, _ := fakeManager(t, nil, nil)
			p, f := startFake(t, m, e, spec("slow", tty))
			defer f.exit(0)
			f.print("start\n")
			synctest.Wait()
			for range 40 {
				f.print(piece)
				synctest.Wait()
			}
			zero := int64(0)
			s := p.Snapshot(Query{Since: &zero, MaxBytes: 1 << 20, Streams: Both})
			if len(s.Binary) != 1 || s.Binary[0].To != p.LogEnd() {
				t.Fatalf("tty=%v: binary parts %v, log end %d", tty, s.Binary, p.LogEnd())
			}
			if n := s.Binary[0].To - s.Binary[0].From; n < 40*int64(len(piece))-64 {
				t.Errorf("tty=%v: %d of %d bytes binary", tty, n, 40*len(piece))
			}
			// At most 64 bytes went on as text (the terminal cleaner shows
			// each byte that is not UTF-8 as U+FFFD).
			if !strings.HasPrefix(string(s.Stdout), "start\n") || strings.Count(string(s.Stdout), "a") > 64/5 {
				t.Errorf("tty=%v: text %q", tty, s.Stdout)
			}
		})
	}
}
