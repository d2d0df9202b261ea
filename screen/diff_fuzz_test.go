package screen

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/mattn/go-runewidth"
	"github.com/yieldshell/yieldshell/screen/internal/oldscreen"
)

// Differential fuzz targets: the refactored parsers against a frozen copy
// of the code before the refactor (screen/internal/oldscreen). Temporary.

func diffSeeds(add func(in []byte)) {
	for _, tc := range cleanCases {
		add([]byte(tc.in))
	}
	for _, dir := range []string{"oracle", "transcripts"} {
		raws, _ := filepath.Glob(filepath.Join("testdata", dir, "*.raw"))
		for _, raw := range raws {
			in, err := os.ReadFile(raw)
			if err != nil {
				continue
			}
			add(in)
			for i := 0; i < len(in); i += 4096 {
				add(in[i:min(i+2048, len(in))])
			}
		}
	}
	for _, s := range []string{
		"\x1b[-1@\x1b[-1P\x1b[2147483647Z\x1b[100000000I",
		"a\x1b]0;t\x1b[3bb\x1bX\x1b[2b\x1b(0lq\x1b(B\x1b((0x\x1b ( 0q",
		"x\x1b[?1;6;7;25;1048;1049h\x1b[?1$p\x1b[4$p\x1b[!p\x1b[>0c\x1b[>q\x1b[?u\x1b[5n\x1b[6n\x1b[?6n\x1b[c",
		"\x1b]10;?\x07\x1b]11;?\x1b\\\x1b]12;?\x1bx\x1bP1$r\x18z\x1b_apc\x1a\x1b^pm\x1b\\",
		"ab\x1b[1;2:3;4<m\x1b[<1;2M\x1b[=c\x1b[1 q\x1b[1$q\x1b[\x80x\x1b[\x07\x08A",
		"é\xe2\x82\x1b\xe2\x82\xac\xf0\x9f\x98\x80\xff\xfe\x1b[\xc3\xa9",
	} {
		add([]byte(s))
	}
}

// skipHuge skips the whole transcripts when fuzzing: mutating them is slow.
func skipHuge(t *testing.T, in []byte) {
	if len(in) > 8192 && flag.Lookup("test.fuzz").Value.String() != "" {
		t.Skip()
	}
}

func FuzzDiffCleaner(f *testing.F) {
	diffSeeds(func(in []byte) { f.Add(in, uint8(7), uint8(5), uint8(3)) })
	f.Fuzz(func(t *testing.T, in []byte, cols, rows, step uint8) {
		skipHuge(t, in)
		eager := cols&1 == 0
		w, h := int(cols%50)+1, int(rows%14)+1
		var nc *Cleaner
		var oc *oldscreen.Cleaner
		if eager {
			nc, oc = NewCleaner(w), oldscreen.NewCleaner(w)
		} else {
			nc, oc = NewTerminal(w, h), oldscreen.NewTerminal(w, h)
		}
		n := int(step)%13 + 1
		var got, want []byte
		for i := 0; i < len(in); i += n {
			p := in[i:min(i+n, len(in))]
			got, want = nc.Write(got, p), oc.Write(want, p)
			if !bytes.Equal(got, want) {
				t.Fatalf("Write at %d: got %q want %q", i, got, want)
			}
			if a, b := nc.TakeReplies(nil), oc.TakeReplies(nil); !bytes.Equal(a, b) {
				t.Fatalf("replies at %d: got %q want %q", i, a, b)
			}
			la, ea := nc.Line()
			lb, eb := oc.Line()
			if la != lb || ea != eb || nc.AltScreen() != oc.AltScreen() || nc.AppCursor() != oc.AppCursor() || nc.DroppedReplies() != oc.DroppedReplies() {
				t.Fatalf("state at %d differs: %q %v / %q %v", i, la, ea, lb, eb)
			}
			if a, b := nc.Pending(nil), oc.Pending(nil); !bytes.Equal(a, b) {
				t.Fatalf("Pending at %d: got %q want %q", i, a, b)
			}
			switch p[0] % 11 {
			case 0:
				got, want = nc.Commit(got), oc.Commit(want)
			case 1:
				c2, r2 := int(p[0]>>2)%50+1, int(p[0]>>4)%14+1
				got, want = nc.Resize(got, c2, r2), oc.Resize(want, c2, r2)
			}
		}
		got, want = nc.Close(got), oc.Close(want)
		if !bytes.Equal(got, want) {
			t.Fatalf("Close: got %q want %q", got, want)
		}
	})
}

func FuzzDiffSanitizer(f *testing.F) {
	diffSeeds(func(in []byte) { f.Add(in, uint8(7)) })
	f.Fuzz(func(t *testing.T, in []byte, step uint8) {
		skipHuge(t, in)
		var z sanitizer
		z.width = runewidth.Condition{StrictEmojiNeutral: true}
		z.cols, z.cells = 30, 30*6
		old := oldscreen.NewSanitizer(30, 6)
		n := int(step)%13 + 1
		var got, want []byte
		for i := 0; i < len(in); i += n {
			p := in[i:min(i+n, len(in))]
			got, want = z.feed(got, p), old.Feed(want, p)
			if !bytes.Equal(got, want) {
				t.Fatalf("feed at %d: got %q want %q", i, got, want)
			}
		}
	})
}
