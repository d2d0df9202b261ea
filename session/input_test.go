package session

import (
	"strings"
	"testing"
	"time"
)

func TestKeyBytes(t *testing.T) {
	tests := []struct {
		key       string
		appCursor bool
		want      string
	}{
		{"Enter", false, "\r"},
		{"enter", false, "\r"},
		{" Tab ", false, "\t"},
		{"Esc", false, "\x1b"},
		{"Up", false, "\x1b[A"},
		{"Up", true, "\x1bOA"},
		{"Left", true, "\x1bOD"},
		{"PageUp", true, "\x1b[5~"},
		{"Backspace", false, "\x7f"},
		{"F1", false, "\x1bOP"},
		{"F12", false, "\x1b[24~"},
		{"C-c", false, "\x03"},
		{"Ctrl-D", false, "\x04"},
		{"ctrl+z", false, "\x1a"},
		{"^L", false, "\x0c"},
		{"C-[", false, "\x1b"},
		{"C-\\", false, "\x1c"},
		{"C-@", false, "\x00"},
		{"C-?", false, "\x7f"},
	}
	for _, tt := range tests {
		got, err := keyBytes(tt.key, tt.appCursor)
		if err != nil || string(got) != tt.want {
			t.Errorf("keyBytes(%q, %v) = %q, %v; want %q", tt.key, tt.appCursor, got, err, tt.want)
		}
	}
	for _, bad := range []string{"", "C-", "C-cc", "Hyper-x", "F13", "enterr"} {
		if _, err := keyBytes(bad, false); err == nil || !strings.Contains(err.Error(), "unknown key") {
			t.Errorf("keyBytes(%q) = %v, want an unknown-key error", bad, err)
		}
	}
}

func TestIsShellCommand(t *testing.T) {
	tests := map[string]bool{
		"bash": true, " bash ": true, "/bin/bash -i": true, "bash -l": true, "bash --login -i": true, "bash -il": true,
		"bash -c 'echo hi'": false, "bash script.sh": false, "bash --norc": false, "zsh": false, "sh -i": false,
		"bashful": false, "": false, "bash; echo": false,
	}
	for cmd, want := range tests {
		if got := isShellCommand(cmd); got != want {
			t.Errorf("isShellCommand(%q) = %v, want %v", cmd, got, want)
		}
	}
}

func TestShellQuote(t *testing.T) {
	tests := map[string]string{
		"/usr/bin/bash":  "/usr/bin/bash",
		"/tmp/a b/rc":    "'/tmp/a b/rc'",
		"it's":           `'it'\''s'`,
		"":               "''",
		"/x/$HOME/`id`/": "'/x/$HOME/`id`/'",
	}
	for in, want := range tests {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}

// After a write, the state from before it does not count: a program that
// takes the input and works a while before it asks again is not reported
// waiting until it asks again, even though it was blocked reading (in the
// same read) when the write went in.
func TestWriteWaitsForTheNextPrompt(t *testing.T) {
	m := newTestManager(t, nil)
	for _, tty := range []bool{true, false} {
		s := spec(`printf "1? "; read a; n=0; while [ $n -lt 20000 ]; do n=$((n+1)); done; printf "2? "; read b; echo "$a$b"`, tty)
		p, err := m.Start(t.Context(), s)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { p.Close() })
		if o := p.Await(t.Context(), time.Now().Add(10*time.Second), Until{InputWait: true}); o.Reason != ReasonInputWait || o.Input.Prompt != "1? " {
			t.Fatalf("tty=%v first prompt: %+v", tty, o)
		}
		if err := p.Type(t.Context(), "x", nil, true, false); err != nil {
			t.Fatal(err)
		}
		o := p.Await(t.Context(), time.Now().Add(10*time.Second), Until{InputWait: true})
		if o.Reason != ReasonInputWait || !strings.HasSuffix(o.Input.Prompt, "2? ") {
			t.Errorf("tty=%v after the write: %+v, want the second prompt", tty, o)
		}
		if err := p.Type(t.Context(), "y", nil, true, false); err != nil {
			t.Fatal(err)
		}
		if r := p.WaitEnd(t.Context(), time.Now().Add(10*time.Second)); r != ReasonExited {
			t.Errorf("tty=%v end: %s", tty, r)
		}
	}
}
