package screen

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

const oracleDir = "testdata/oracle"

// Known differences from tmux, by transcript, with the reason. The test
// fails if one of these starts to match (update the list) or another
// transcript stops matching.
var (
	oracleLogDiffs = map[string]string{
		"syn_dec_graphics": "tmux's capture-pane prints line-drawing characters as their ASCII codes (lqqk); we log the box characters a person sees (┌──┐)",
		"syn_tabs":         "tmux 3.3a does not move on CHT (CSI I); we move to the next tab stop, as ECMA-48 and xterm do",
		"syn_wide_margin":  "tmux 3.3a keeps a wide character in column 1 when only its right half is overwritten; we blank it, as xterm does and as tmux does elsewhere on the row",
	}
	oracleScreenDiffs = map[string]string{
		"cjk_emoji":        "vt10x holds one rune per cell, so the rendered screen drops combining marks (the log keeps them)",
		"syn_combining":    "vt10x holds one rune per cell, so the rendered screen drops combining marks (the log keeps them)",
		"syn_dec_graphics": "as in the log: tmux prints line drawing as ASCII",
		"syn_tabs":         "as in the log: tmux 3.3a ignores CHT",
		"syn_wide_margin":  "as in the log: tmux 3.3a keeps the half-overwritten wide character",
	}
)

// TestOracle (with -update: after replaying each transcript into tmux and
// rewriting its golden files) replays each transcript of testdata/oracle (real programs
// captured at 120x40 by capture.sh, and synthetic cases) into a deferred
// Cleaner and a Screen, and compares with what tmux made of the same bytes:
// the log after the end with tmux's history and screen (capture-pane -p -J
// -S - -E -), the rendered screen with tmux's visible screen. Trailing
// blanks and trailing empty lines are trimmed on both sides; our
// AltScreenNotice line, which tmux has no equivalent for, is left out.
func TestOracle(t *testing.T) {
	names := oracleNames(t)
	if len(names) < 25 {
		t.Fatalf("only %d transcripts", len(names))
	}
	if *update {
		if _, err := exec.LookPath("tmux"); err != nil {
			t.Fatal("-update needs tmux")
		}
		for name, g := range tmuxReplay(t, names) {
			for ext, s := range map[string]string{".tmux.log": g.log, ".tmux.screen": g.screen} {
				if err := os.WriteFile(filepath.Join(oracleDir, name+ext), []byte(s), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	logOK, screenOK := 0, 0
	for _, name := range names {
		raw := readOracle(t, name+".raw")
		log, screen := ourViews(raw)
		wantLog := normalise(readOracle(t, name+".tmux.log"))
		wantScreen := normalise(readOracle(t, name+".tmux.screen"))
		logOK += compareOracle(t, name, "log", log, wantLog, oracleLogDiffs)
		screenOK += compareOracle(t, name, "screen", screen, wantScreen, oracleScreenDiffs)
	}
	t.Logf("exact matches with tmux: log %d/%d, screen %d/%d", logOK, len(names), screenOK, len(names))
}

// TestOracleLive re-derives the golden files with the installed tmux.
func TestOracleLive(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux not installed")
	}
	if testing.Short() || *update {
		t.Skip("short mode or -update")
	}
	for name, g := range tmuxReplay(t, oracleNames(t)) {
		if want := string(readOracle(t, name+".tmux.log")); normalise([]byte(g.log)) != normalise([]byte(want)) {
			t.Errorf("%s: tmux's log differs from the golden file", name)
		}
		if want := string(readOracle(t, name+".tmux.screen")); normalise([]byte(g.screen)) != normalise([]byte(want)) {
			t.Errorf("%s: tmux's screen differs from the golden file", name)
		}
	}
}

func compareOracle(t *testing.T, name, view, got, want string, known map[string]string) int {
	t.Helper()
	reason, isKnown := known[name]
	switch {
	case got == want && isKnown:
		t.Errorf("%s: %s now matches tmux; remove it from the known differences (%s)", name, view, reason)
	case got == want:
		return 1
	case !isKnown:
		t.Errorf("%s: %s differs from tmux\n%s", name, view, firstDiff(got, want))
	}
	return 0
}

func firstDiff(got, want string) string {
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
			return "line " + strconv.Itoa(i+1) + ":\n ours " + strconv.Quote(gl) + "\n tmux " + strconv.Quote(wl)
		}
	}
	return "(same lines)"
}

func ourViews(raw []byte) (log, screen string) {
	c := NewTerminal(120, 40)
	l := string(c.Close(c.Write(nil, raw)))
	l = strings.ReplaceAll(l, AltScreenNotice, "")
	s := New(120, 40)
	s.Write(raw)
	return normalise([]byte(l)), normalise([]byte(strings.Join(s.Snapshot().Lines, "\n")))
}

// normalise trims trailing blanks of each line and trailing empty lines.
func normalise(b []byte) string {
	lines := strings.Split(string(b), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return strings.Join(lines, "\n")
}

func oracleNames(t *testing.T) []string {
	t.Helper()
	raws, err := filepath.Glob(filepath.Join(oracleDir, "*.raw"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range raws {
		names = append(names, strings.TrimSuffix(filepath.Base(r), ".raw"))
	}
	return names
}

func readOracle(t *testing.T, file string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(oracleDir, file))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

type tmuxResult struct{ log, screen string }

// tmuxReplay writes each transcript into a tmux pane of 120x40 (output
// processing off, so the bytes arrive as recorded) in one private tmux
// server, and captures history plus screen, and the visible screen.
func tmuxReplay(t *testing.T, names []string) map[string]tmuxResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	sock := "yieldshell-oracle-" + strconv.Itoa(os.Getpid())
	conf, err := filepath.Abs(filepath.Join(oracleDir, "tmux.conf"))
	if err != nil {
		t.Fatal(err)
	}
	tmux := func(args ...string) string {
		out, err := exec.CommandContext(ctx, "tmux", append([]string{"-L", sock, "-f", conf}, args...)...).Output()
		if err != nil {
			t.Fatalf("tmux %v: %v", args, err)
		}
		return string(out)
	}
	t.Cleanup(func() { _ = exec.Command("tmux", "-L", sock, "kill-server").Run() })
	for _, name := range names {
		raw, err := filepath.Abs(filepath.Join(oracleDir, name+".raw"))
		if err != nil {
			t.Fatal(err)
		}
		// The pause before the signal lets tmux read the last bytes from
		// the terminal before the capture; the sleep keeps the pane open.
		script := "stty -opost -echo; cat '" + raw + "'; sleep 1; tmux -L " + sock + " wait-for -S " + name + "; sleep 600"
		tmux("new-session", "-d", "-s", name, "-x", "120", "-y", "40", script)
	}
	res := map[string]tmuxResult{}
	for _, name := range names {
		tmux("wait-for", name)
		res[name] = tmuxResult{
			log:    tmux("capture-pane", "-p", "-J", "-S", "-", "-E", "-", "-t", name),
			screen: tmux("capture-pane", "-p", "-t", name),
		}
	}
	return res
}
