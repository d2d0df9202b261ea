//go:build unix

package session

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/yieldshell/yieldshell/internal/disklog"
	"github.com/yieldshell/yieldshell/screen"
)

// redrawing are transcripts whose programs redraw rows: the ones whose log
// would change if looking at them committed the screen.
var redrawing = []string{"cargo_bar", "docker_layers", "apt_region", "git_clone", "npm_spinner", "rich_progress", "tqdm_bars", "syn_multiline_progress"}

// Spec: issue 31 item 1: "A test feeds the same redrawing transcripts with
// and without a log directory, a progress token, ... and concurrent ps
// calls, and gets byte-identical logs."
//
// Each transcript is played by a program under a PTY in pieces, quiet
// between them (longer than the log file waits before it shows the
// screen), with and without a log directory, with and without lookers
// (what ps, progress notifications and a write's starting point take).
// The log must be, byte for byte, what the terminal cleaner makes of the
// whole transcript at once: nothing commits the screen but the program's
// own output and its end.
func TestLogDoesNotDependOnWhoLooks(t *testing.T) {
	if testing.Short() {
		t.Skip("transcripts played with real pauses: runs without -short")
	}
	m := newTestManager(t, nil)
	m.timing.diskCommit = 5 * time.Millisecond
	dir := t.TempDir()
	type transcript struct {
		name string
		raw  []byte
	}
	all := []transcript{{"step", []byte("step 1\x00\rstep 2\x00\rdone  \r\n")}}
	for _, name := range redrawing {
		all = append(all, transcript{name, readFile(t, filepath.Join(oracleDir, name+".raw"))})
	}
	for _, tr := range all {
		command := pieces(t, filepath.Join(dir, tr.name), tr.raw)
		c := screen.NewTerminal(DefaultCols, DefaultRows)
		want := string(c.Close(c.Write(nil, bytes.ReplaceAll(tr.raw, []byte{0}, nil))))
		for _, way := range []struct {
			name        string
			disk, looks bool
		}{{"alone", false, false}, {"log dir", true, false}, {"lookers", false, true}, {"log dir and lookers", true, true}} {
			got, file := playLooked(t, m, command, way.disk, way.looks)
			if got != want {
				t.Errorf("%s, %s: log differs from the transcript's at once\n%s", tr.name, way.name, diffLine(got, want))
			}
			if way.disk && !strings.Contains(file, lastLine(want)) {
				t.Errorf("%s, %s: the log file lacks the log's last line %q:\n%s", tr.name, way.name, lastLine(want), file)
			}
		}
	}
}

// pieces writes raw, split at its NUL bytes and before every fifth
// carriage return, to numbered files next to base, and returns the command
// that plays them with a pause between each two, the terminal passing
// bytes as they are.
func pieces(t *testing.T, base string, raw []byte) string {
	t.Helper()
	var parts [][]byte
	crs := 0
	start := 0
	for i, b := range raw {
		switch {
		case b == 0:
			parts = append(parts, raw[start:i])
			start = i + 1
		case b == '\r' && i+1 < len(raw) && raw[i+1] != '\n':
			if crs++; crs%5 == 0 {
				parts = append(parts, raw[start:i])
				start = i
			}
		}
	}
	parts = append(parts, raw[start:])
	cmd := []string{"stty -opost -echo"}
	for i, part := range parts {
		path := fmt.Sprintf("%s.%d", base, i)
		if err := os.WriteFile(path, part, 0o600); err != nil {
			t.Fatal(err)
		}
		if i > 0 {
			cmd = append(cmd, "sleep 0.03")
		}
		cmd = append(cmd, "cat "+path)
	}
	return strings.Join(cmd, "; ")
}

// playLooked runs command, with a log directory if disk and with lookers
// if looks, and returns its whole log and log file.
func playLooked(t *testing.T, m *Manager, command string, disk, looks bool) (log, file string) {
	t.Helper()
	if disk {
		m.disk = disklog.New(t.TempDir(), 10<<20, m.log)
		defer func() {
			m.disk.Wait()
			m.disk = nil
		}()
	}
	p, err := m.Start(t.Context(), spec(command, true))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	var wg sync.WaitGroup
	if looks {
		ctx, cancel := context.WithCancel(t.Context())
		defer wg.Wait()
		defer cancel()
		for range 2 {
			wg.Go(func() { look(ctx, p) })
		}
	}
	if r := p.WaitEnd(t.Context(), time.Now().Add(20*time.Second)); r != ReasonExited {
		t.Fatalf("%q did not end: %s", command, r)
	}
	zero := int64(0)
	log = string(p.Snapshot(Query{Since: &zero, MaxBytes: 1 << 30, Streams: Both}).Stdout)
	if disk {
		m.disk.Wait()
		b, err := os.ReadFile(m.LogPath(p))
		if err != nil {
			t.Fatal(err)
		}
		file = string(b)
	}
	return log, file
}

// look does what the lookers of a process do, again and again until ctx
// is done: ps's snapshot, a progress notification's newest output, a
// write's starting point and the metrics' summary, each after the next
// output or a millisecond.
func look(ctx context.Context, p *Process) {
	for ctx.Err() == nil {
		p.Snapshot(Query{Look: true, Input: InputSettled})
		p.Snapshot(Query{Look: true, MaxBytes: 800, Streams: Both})
		p.Snapshot(Query{Look: true})
		p.Info()
		p.Await(ctx, time.Now().Add(time.Millisecond), Until{Next: true})
	}
}

func lastLine(s string) string {
	s = strings.TrimRight(s, "\n")
	return s[strings.LastIndexByte(s, '\n')+1:]
}
