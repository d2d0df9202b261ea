//go:build unix

package console

import (
	"strings"
	"testing"

	"github.com/yieldshell/yieldshell/internal/wire"
)

// TestPsShowsEscapes: escapes in a command or a name reach the ps table
// as visible text, never as control characters that would redraw the
// person's terminal (issue 30 item 7).
func TestPsShowsEscapes(t *testing.T) {
	var b strings.Builder
	err := writePs(&b, []wire.PsEntry{
		{ProcessID: "proc_1", Name: "web\x1b[8m", Status: "running", Pid: 42,
			Command: "printf '\x1b]0;owned\x07\x1b[2J\x1b[1A\rok'; \u009b31m sleep 9"},
	})
	if err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if i := strings.IndexFunc(out, func(r rune) bool { return r != '\n' && (r < 0x20 || r >= 0x7f && r <= 0x9f) }); i >= 0 {
		t.Errorf("the table carries a control character at %d: %q", i, out)
	}
	for _, want := range []string{`web\x1b[8m`, `printf '\x1b]0;owned\x07\x1b[2J\x1b[1A ok'; \u009b31m`} {
		if !strings.Contains(out, want) {
			t.Errorf("the table lacks %s:\n%s", want, out)
		}
	}
}

// TestLogsAndAttachShowEscapes: what a program printed reaches the
// person's terminal through yieldshell logs and attach with its controls
// shown, never sent: pipe-mode CSI queries and screen wipes, UTF-8 C1
// codes (issue 38 item 7). Line feeds and tabs stay.
func TestLogsAndAttachShowEscapes(t *testing.T) {
	printed := "ok\tfine\n\x1b[2J\x1b[6n\u009b31m\x1b]0;owned\x07done\n"
	controls := func(s string) int {
		return strings.IndexFunc(s, func(r rune) bool {
			return r != '\n' && r != '\t' && r != '\r' && (r < 0x20 || r >= 0x7f && r <= 0x9f)
		})
	}
	var out, errOut strings.Builder
	emit(wire.OutputOut{Stdout: &printed, Stderr: &printed}, 0, &out, &errOut)
	for _, s := range []string{out.String(), errOut.String()} {
		if i := controls(s); i >= 0 || !strings.Contains(s, "ok\tfine\n") || !strings.Contains(s, `\x1b[2J`) {
			t.Errorf("logs wrote a control character at %d: %q", i, s)
		}
	}
	var scr strings.Builder
	drawScreen(&scr, &wire.ScreenOut{Lines: []string{"top\x1b[2J", "\u009b6n"}, Cols: 10, Rows: 2})
	// drawScreen's own sequences come first and last: none in between.
	body := strings.TrimPrefix(scr.String(), "\x1b[H\x1b[2J")
	body = body[:strings.LastIndex(body, "\x1b[")]
	if i := controls(strings.ReplaceAll(body, "\r\n", "\n")); i >= 0 {
		t.Errorf("attach drew a control character at %d: %q", i, body)
	}
}
