package screen

import (
	"strings"
	"testing"
)

// OnOSC hands over every complete OSC's payload where it ends, in order,
// however the output is split, and changes nothing else the Cleaner does.
func TestCleanerOnOSC(t *testing.T) {
	long := strings.Repeat("x", OSCCap-4)
	for _, tc := range []struct {
		name, in string
		want     []string // payloads, in order
	}{
		{"BEL", "a\x1b]133;A\x07b", []string{"133;A"}},
		{"ST", "\x1b]633;D;0\x1b\\", []string{"633;D;0"}},
		{"two", "\x1b]133;D;1\x07\x1b]133;A\x07$ ", []string{"133;D;1", "133;A"}},
		{"ended by another sequence", "\x1b]133;B\x1b[0m", []string{"133;B"}},
		{"inside a CSI", "\x1b[1\x1b]133;C\x07", []string{"133;C"}},
		{"title", "\x1b]0;my title\x07", []string{"0;my title"}},
		{"long", "\x1b]133;" + long + "\x07", []string{"133;" + long}},
		{"past the cap", "\x1b]133;" + long + "yy\x07", nil},
		{"aborted by CAN", "\x1b]133;A\x18\x07", nil},
		{"aborted by SUB", "\x1b]133;A\x1a\x07", nil},
		{"unfinished", "\x1b]133;A", nil},
		{"DCS", "\x1bP133;A\x1b\\", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for split := 0; split <= len(tc.in); split += max(1, len(tc.in)/50) {
				plain, hooked := NewTerminal(80, 24), NewTerminal(80, 24)
				var got []string
				hooked.OnOSC(func(p []byte) { got = append(got, string(p)) })
				var a, b []byte
				for _, part := range []string{tc.in[:split], tc.in[split:]} {
					a = plain.Write(a, []byte(part))
					b = hooked.Write(b, []byte(part))
				}
				a, b = plain.Close(a), hooked.Close(b)
				if strings.Join(got, "|") != strings.Join(tc.want, "|") {
					t.Fatalf("split at %d: payloads %q, want %q", split, got, tc.want)
				}
				if string(a) != string(b) {
					t.Fatalf("split at %d: log %q with OnOSC, %q without", split, b, a)
				}
			}
		})
	}
}

// A colour query that another sequence ends is not answered, as before
// the tokenizer passed such an OSC on.
func TestCleanerColourQueryEndedByEscape(t *testing.T) {
	c := NewTerminal(80, 24)
	c.Write(nil, []byte("\x1b]11;?\x1b[0m\x1b]11;?\x07"))
	if got := string(c.TakeReplies(nil)); got != "\x1b]11;"+ColourBackground+"\x07" {
		t.Errorf("replies %q, want only the BEL-terminated query's", got)
	}
}

// OnOSC's f may look at the line the mark stands on and take the replies
// to the queries before it.
func TestCleanerOnOSCSeesItsPoint(t *testing.T) {
	c := NewTerminal(80, 24)
	var line, replies string
	c.OnOSC(func([]byte) {
		line, _ = c.Line()
		replies = string(c.TakeReplies(nil))
	})
	c.Write(nil, []byte("\x1b[6nuser@host$ \x1b]133;B\x07\x1b[5n"))
	if line != "user@host$ " || replies != "\x1b[1;1R" {
		t.Errorf("at the mark: line %q, replies %q", line, replies)
	}
	if rest := string(c.TakeReplies(nil)); rest != "\x1b[0n" {
		t.Errorf("after the mark: replies %q", rest)
	}
}
