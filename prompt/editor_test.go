package prompt

import (
	"strings"
	"testing"
)

func TestInEditorMode(t *testing.T) {
	tests := []struct {
		above string
		want  bool
	}{
		{"> .editor\n" + nodeEditorBanner, true},
		{"> .editor\n" + nodeEditorBanner + "\nlet a = 1\nfunction f() {\n  return a\n}", true},
		{"> .editor\n" + nodeEditorBanner + "\nlet a = 1\n\n2\n> 1+1\n2", false},
		{"Welcome to Node.js v20.20.2.\nType \".help\" for more information.", false},
		{"", false},
		{"// Entering editor mode", false},
		{nodeEditorBanner + "\n" + strings.Repeat("x\n", maxEditorLines) + "y", false},
	}
	for _, tt := range tests {
		if got := inEditorMode(strings.Split(tt.above, "\n")); got != tt.want {
			t.Errorf("inEditorMode(%q) = %v, want %v", tt.above, got, tt.want)
		}
	}
}
