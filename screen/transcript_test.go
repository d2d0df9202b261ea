package screen

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// update rewrites the expected .log and .screen files of the golden
// transcripts from the current output: go test ./screen -run Transcript -update.
// Review the diff by eye before committing: an expectation is what a person
// watching the terminal saw, not whatever the code happens to produce.
var update = flag.Bool("update", false, "rewrite testdata/transcripts/*.log and *.screen from current output")

// knownGaps lists transcripts whose expectation is right but which the code
// does not meet yet; their test is skipped with the reason.
var knownGaps = map[string]string{}

// Golden transcripts: raw PTY bytes of real programs (captured once at
// 120x40, TERM=xterm-256color) with the clean log and, where the screen is
// the point, the rendered screen a person saw.
func TestTranscripts(t *testing.T) {
	raws, err := filepath.Glob(filepath.Join("testdata", "transcripts", "*.raw"))
	if err != nil {
		t.Fatal(err)
	}
	if len(raws) == 0 {
		t.Fatal("no transcripts")
	}
	for _, raw := range raws {
		base := strings.TrimSuffix(raw, ".raw")
		name := filepath.Base(base)
		t.Run(name, func(t *testing.T) {
			in, err := os.ReadFile(raw)
			if err != nil {
				t.Fatal(err)
			}
			if *update {
				writeGolden(t, base+".log", cleanAll(in, len(in)))
				if _, err := os.Stat(base + ".screen"); err == nil {
					writeGolden(t, base+".screen", screenText(in))
				}
				return
			}
			if why, ok := knownGaps[name]; ok {
				t.Skip("known gap: " + why)
			}
			want, err := os.ReadFile(base + ".log")
			if err != nil {
				t.Fatal(err)
			}
			for _, chunk := range []int{len(in), 4096, 1} {
				if got := cleanAll(in, chunk); got != string(want) {
					t.Errorf("log (writes of %d bytes):\n got %q\nwant %q", chunk, got, want)
				}
			}
			wantScreen, err := os.ReadFile(base + ".screen")
			if os.IsNotExist(err) {
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := screenText(in); got != string(wantScreen) {
				t.Errorf("screen:\n got %q\nwant %q", got, wantScreen)
			}
		})
	}
}

// cleanAll feeds in to a fresh 120-column cleaner in writes of chunk bytes,
// then Close.
func cleanAll(in []byte, chunk int) string {
	c := NewCleaner(120)
	var out []byte
	for len(in) > 0 {
		n := min(max(chunk, 1), len(in))
		out = c.Write(out, in[:n])
		in = in[n:]
	}
	return string(c.Close(out))
}

// screenText renders in on a 120x40 screen and returns its lines, trailing
// blank rows dropped, one per line.
func screenText(in []byte) string {
	s := New(120, 40)
	s.Write(in)
	lines := s.Snapshot().Lines
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	if len(lines) == 0 {
		return ""
	}
	return strings.Join(lines, "\n") + "\n"
}

func writeGolden(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}
