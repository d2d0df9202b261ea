package session

import (
	"regexp"
	"testing"

	"github.com/yieldshell/yieldshell/internal/outlog"
	"github.com/yieldshell/yieldshell/internal/policy"
)

// In PTY mode rows stay open while on the screen: a redraw changes them
// without logging each frame; flush (every answer) commits them, and a
// pattern finds text that is on the screen only, redacted.
func TestPipelineDefersRowsOnScreen(t *testing.T) {
	secrets := []policy.Secret{{Name: "TOKEN", Value: "hunter2hunter2"}}
	o := newTerminalPipeline(80, 24, newSecretList(secrets))
	l := outlog.New(1 << 20)
	var sc scratch
	o.append(l, Stdout, []byte("A: 0%\r\nB: 0%\r\n"), &sc, false)
	o.append(l, Stdout, []byte("\x1b[2A\rA: 50%\x1b[K\r\nB: 55%\x1b[K\r\nkey hunter2hunter2\r\n"), &sc, false)
	if l.End() != 0 {
		t.Errorf("rows on the screen were logged before a commit: %q", l.ReadFrom(0, 1<<20, Both).Stdout)
	}
	if !o.pendingMatch(regexp.MustCompile(`B: 55%`), nil) || o.pendingMatch(regexp.MustCompile(`hunter2`), nil) {
		t.Errorf("pendingMatch does not see the screen's text, redacted")
	}
	o.flush(l)
	if got := string(l.ReadFrom(0, 1<<20, Both).Stdout); got != "A: 50%\nB: 55%\nkey [REDACTED:TOKEN]\n" {
		t.Errorf("log after flush = %q", got)
	}
}
