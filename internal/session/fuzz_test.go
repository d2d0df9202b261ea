package session

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/yieldshell/yieldshell/internal/outlog"
	"github.com/yieldshell/yieldshell/internal/policy"
)

// fuzzSecrets are redacted from the fuzzed output; one is not ASCII.
var fuzzSecrets = []policy.Secret{
	{Name: "API_TOKEN", Value: "p4ssw0rd!42"},
	{Name: "DB_PASSWORD", Value: "s\u00e9cr\u00e8t-\u6f22"},
}

// newFuzzProcess builds the part of a PTY-mode Process that the output
// path uses (pipeline, Snapshot), as newProcess does,
// without an OS process behind it.
func newFuzzProcess(capacity, cols, rows int) *Process {
	p := &Process{
		ID:      "proc_fuzz",
		TTY:     true,
		changed: make(chan struct{}),
		log:     outlog.New(capacity),
		timing:  new(defaultTiming(&policy.Config{})),
	}
	p.out = newTerminalPipeline(cols, rows, newSecretList(fuzzSecrets))
	return p
}

// FuzzOutputPath feeds random terminal output through what the reader
// goroutine of a PTY-mode process does with it: redactor, cleaner, log and
// pending screen, with snapshots in between. plan cuts data into chunks:
// each byte gives a chunk length (low 6 bits, plus one) and what to read
// after the chunk (high 2 bits). flags picks the terminal size and, with
// bit 0, a log so small that it evicts.
func FuzzOutputPath(f *testing.F) {
	f.Add([]byte("hello\r\nworld\r\n$ "), []byte{0x05, 0x47, 0x83, 0xc0}, byte(0))
	f.Add([]byte("token p4ssw0rd!42 and s\u00e9cr\u00e8t-\u6f22 done\r\n"), []byte{0x02, 0x43, 0x81, 0xc4, 0x07}, byte(0))
	f.Add([]byte("p4ssw\r\n0rd!42\r\np4ss\x1b[31mw0rd!42\x1b[0m\r\n"), []byte{0x04, 0x44, 0x84, 0xc4}, byte(0))
	f.Add([]byte("\x1b[?1049h\x1b[2J\x1b[Htop - 12:00\x1b[5;1Hrow\x1b[?1049l\r\nafter\r\n"), []byte{0x08, 0xc8, 0x48, 0x88, 0x3f}, byte(2))
	f.Add([]byte("progress 10%\rprogress 50%\rprogress 100%\r\n\x1b[K\x1b[1A\x1b[2Kdone"), []byte{0x0c, 0x4c, 0x8c, 0xcc}, byte(4))
	f.Add([]byte("\xff\xfe\xe6\xbc\x22\xf0\x9f\x98\x80 bad utf8 \xc3(\r\n\x1b]0;title\x07\x1bP junk \x1b\\ end"), []byte{0x01, 0x41, 0x81, 0xc1, 0x02}, byte(0))
	f.Add(bytes.Repeat([]byte("0123456789abcdef\u00e9\u6f22\r\n"), 40), []byte{0x3f, 0x7f, 0xbf, 0xff}, byte(1))
	f.Add([]byte("abc\bd\tx\x07\x00\x0e\x0f\x1b(0lqk\x1b(B\r\n"), []byte{0x00, 0x40, 0x80, 0xc0}, byte(3))
	f.Fuzz(func(t *testing.T, data, plan []byte, flags byte) {
		capacity := 1 << 20
		if flags&1 != 0 {
			capacity = 16 + int(flags>>4)*4
		}
		cols := 2 + int(flags>>1&7)*20
		rows := 2 + int(flags>>4)*3
		p := newFuzzProcess(capacity, cols, rows)
		red := policy.NewRedactor(fuzzSecrets)

		var redacted, stream []byte // stream: all the redactor let through
		var sc scratch
		var follow, lastTail int64 // the cursor of a reader that follows next_seq
		check := func(what string, q Query) Output {
			t.Helper()
			out := p.Snapshot(q).Output
			checkOutput(t, what, out)
			if q.Screen && out.Screen == nil {
				t.Fatalf("%s: no screen in PTY mode", what)
			}
			if p.log.Start() > 0 && q.Since != nil && *q.Since < p.log.Start() && !out.Evicted {
				t.Fatalf("%s: since %d < start %d but not evicted", what, *q.Since, p.log.Start())
			}
			return out
		}

		rest := data
		for i := 0; len(rest) > 0; i++ {
			n := len(rest)
			var op byte
			if i < len(plan) {
				n = min(n, int(plan[i]&0x3f)+1)
				op = plan[i] >> 6
			}
			redacted = red.Write(redacted[:0], rest[:n])
			stream = append(stream, redacted...)
			rest = rest[n:]
			p.mu.Lock()
			p.out.append(p.log, Stdout, redacted, &sc, false)
			p.mu.Unlock()

			switch op {
			case 1: // the tail, as exec and read without since_seq return it
				out := check("tail", Query{MaxBytes: 1 + int(plan[i]&7), Streams: Both, Screen: plan[i]&8 != 0})
				if out.NextSeq < lastTail {
					t.Fatalf("tail next_seq went back: %d after %d", out.NextSeq, lastTail)
				}
				lastTail = out.NextSeq
			case 2: // an incremental reader
				since := follow
				out := check("follow", Query{Since: &since, MaxBytes: 1 + int(plan[i]&7), Streams: Stdout})
				if out.NextSeq < follow {
					t.Fatalf("next_seq went back: %d after since_seq %d", out.NextSeq, follow)
				}
				follow = out.NextSeq
			case 3: // the screen
				zero := int64(0)
				check("screen", Query{Since: &zero, MaxBytes: 0, Streams: Both, Screen: true})
			}
		}
		redacted = red.Flush(redacted[:0])
		stream = append(stream, redacted...)
		for _, s := range fuzzSecrets {
			if bytes.Contains(stream, []byte(s.Value)) {
				t.Fatalf("the redactor let the value of %s through: %q", s.Name, stream)
			}
		}
		p.mu.Lock()
		p.out.append(p.log, Stdout, redacted, &sc, true)
		p.mu.Unlock()

		// One big read, then the same from 0 in pages of 7 bytes.
		zero := int64(0)
		whole := check("whole", Query{Since: &zero, MaxBytes: 1 << 30, Streams: Both, Screen: true})
		if whole.Capped || len(whole.Stderr) > 0 {
			t.Fatalf("whole read: capped %v, stderr %q", whole.Capped, whole.Stderr)
		}
		if p.log.Start() > 0 { // evicted: the pages cannot be compared
			if !whole.Evicted {
				t.Fatalf("start %d > 0 but not evicted", p.log.Start())
			}
			return
		}
		if whole.Evicted || whole.StartSeq != 0 {
			t.Fatalf("evicted %v, start %d with capacity %d", whole.Evicted, whole.StartSeq, capacity)
		}
		var pages []byte
		for since := int64(0); since < whole.NextSeq; {
			s := since
			out := check("page", Query{Since: &s, MaxBytes: 7, Streams: Both})
			if len(out.Stdout) > 7 {
				t.Fatalf("page at %d: %d bytes > 7", since, len(out.Stdout))
			}
			if out.NextSeq <= since {
				t.Fatalf("page at %d: no progress (next %d)", since, out.NextSeq)
			}
			pages = append(pages, out.Stdout...)
			since = out.NextSeq
		}
		if !bytes.Equal(pages, whole.Stdout) {
			t.Fatalf("pages of 7 bytes differ from one read:\npages %q\nwhole %q", pages, whole.Stdout)
		}
		if int64(len(whole.Stdout)) != whole.NextSeq {
			t.Fatalf("whole read: %d bytes, next_seq %d", len(whole.Stdout), whole.NextSeq)
		}
	})
}

func checkOutput(t *testing.T, what string, out Output) {
	t.Helper()
	if !utf8.Valid(out.Stdout) {
		t.Fatalf("%s: stdout is not UTF-8: %q", what, out.Stdout)
	}
	if i := bytes.IndexByte(out.Stdout, 0x1b); i >= 0 {
		t.Fatalf("%s: stdout has ESC at %d: %q", what, i, out.Stdout)
	}
	for _, s := range fuzzSecrets {
		if bytes.Contains(out.Stdout, []byte(s.Value)) {
			t.Fatalf("%s: stdout has the value of %s: %q", what, s.Name, out.Stdout)
		}
	}
	if out.Screen != nil {
		for _, l := range out.Screen.Lines {
			if !utf8.ValidString(l) {
				t.Fatalf("%s: screen line is not UTF-8: %q", what, l)
			}
			for _, s := range fuzzSecrets {
				if strings.Contains(l, s.Value) {
					t.Fatalf("%s: screen shows the value of %s: %q", what, s.Name, l)
				}
			}
		}
	}
}
