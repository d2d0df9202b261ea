package pty

import (
	"strings"
	"testing"
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
		got, err := KeyBytes(tt.key, tt.appCursor)
		if err != nil || string(got) != tt.want {
			t.Errorf("KeyBytes(%q, %v) = %q, %v; want %q", tt.key, tt.appCursor, got, err, tt.want)
		}
	}
	for _, bad := range []string{"", "C-", "C-cc", "Hyper-x", "F13", "enterr"} {
		if _, err := KeyBytes(bad, false); err == nil || !strings.Contains(err.Error(), "unknown key") {
			t.Errorf("KeyBytes(%q) = %v, want an unknown-key error", bad, err)
		}
	}
}
