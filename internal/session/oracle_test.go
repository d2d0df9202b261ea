package session

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/yieldshell/yieldshell/internal/outlog"
	"github.com/yieldshell/yieldshell/internal/policy"
	"github.com/yieldshell/yieldshell/screen"
)

// oracleDir holds the tmux oracle's transcripts and golden files (see
// screen/oracle_test.go, which compares the screen package with them and
// lists the known differences with their reasons).
const oracleDir = "../../screen/testdata/oracle"

// TestOracleThroughThePipeline replays each transcript of the tmux oracle
// through what a PTY-mode process does with its output (the pipeline:
// redactor, cleaner, log, rendered screen), in the terminal's read sizes
// and in small pieces, and compares the log after the end and the screen
// with tmux's. Where they differ from tmux, they must differ exactly as the
// screen package does (whose test names the reason): the session adds
// nothing of its own.
func TestOracleThroughThePipeline(t *testing.T) {
	raws, err := filepath.Glob(filepath.Join(oracleDir, "*.raw"))
	if err != nil || len(raws) < 25 {
		t.Fatalf("oracle transcripts: %d, %v", len(raws), err)
	}
	secrets := []policy.Secret{{Name: "ORACLE_SECRET", Value: "not-in-any-transcript"}}
	logOK, screenOK := 0, 0
	for _, path := range raws {
		name := strings.TrimSuffix(filepath.Base(path), ".raw")
		raw := readFile(t, path)
		wantLog := trimBlank(string(readFile(t, filepath.Join(oracleDir, name+".tmux.log"))))
		wantScreen := trimBlank(string(readFile(t, filepath.Join(oracleDir, name+".tmux.screen"))))

		c := screen.NewTerminal(120, 40)
		model := trimBlank(strings.ReplaceAll(string(c.Close(c.Write(nil, raw))), screen.AltScreenNotice, ""))
		s := screen.New(120, 40)
		s.Write(raw)
		modelScreen := trimBlank(strings.Join(s.Snapshot().Lines, "\n"))

		for _, chunk := range []int{4096, 7} {
			o := newTerminalPipeline(120, 40, newSecretList(secrets))
			l := outlog.New(64 << 20)
			var sc scratch
			for rest := raw; ; {
				n := min(chunk, len(rest))
				o.append(l, Stdout, rest[:n], &sc, n == len(rest))
				rest = rest[n:]
				if len(rest) == 0 {
					break
				}
			}
			gotLog := trimBlank(strings.ReplaceAll(string(l.ReadFrom(0, 64<<20, Both).Stdout), screen.AltScreenNotice, ""))
			gotScreen := trimBlank(strings.Join(o.view.snapshot().Lines, "\n"))
			if gotLog != model {
				t.Errorf("%s (reads of %d): the session's log differs from the screen package's\n%s", name, chunk, diffLine(gotLog, model))
			}
			if gotScreen != modelScreen {
				t.Errorf("%s (reads of %d): the session's screen differs from the screen package's\n%s", name, chunk, diffLine(gotScreen, modelScreen))
			}
			if chunk == 4096 {
				logOK += btoi(gotLog == wantLog)
				screenOK += btoi(gotScreen == wantScreen)
			}
		}
	}
	t.Logf("exact matches with tmux through the pipeline: log %d/%d, screen %d/%d", logOK, len(raws), screenOK, len(raws))
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// trimBlank trims each line's trailing blanks and the trailing empty lines,
// as the oracle compares.
func trimBlank(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return strings.Join(lines, "\n")
}

func diffLine(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range max(len(g), len(w)) {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return "line " + strconv.Itoa(i+1) + ":\n got  " + gl + "\n want " + wl
		}
	}
	return "(same lines)"
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
