package shellyeah

import (
	"slices"
	"testing"

	"golang.org/x/sys/windows"
)

// TestJoinCommand: each argument reaches the program as one, as Windows
// itself splits a command line (CommandLineToArgvW), and cmd.exe's
// operators inside one stay text.
func TestJoinCommand(t *testing.T) {
	for _, args := range [][]string{
		{"run", "dev"},
		{"hello world", `say "hi"`, `C:\Program Files\`, `a\\"b`, "a&b|c>d", "", `trailing\`},
	} {
		line := joinCommand("prog", args)
		got, err := windows.DecomposeCommandLine(line)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got[1:], args) {
			t.Errorf("joinCommand(prog, %q) = %s, which splits into %q", args, line, got[1:])
		}
	}
	if got := joinCommand("npm", []string{"run", "dev"}); got != "npm run dev" {
		t.Errorf("plain words are quoted: %s", got)
	}
}
