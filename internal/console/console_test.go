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
