package shellinit

import (
	"os"
	"slices"
	"strings"
)

// What every shell integration (bash, zsh, fish) shares.

// writeOnce writes a shell-integration file unless it is there already.
func writeOnce(path, content string) error {
	if _, err := os.Stat(path); err == nil {
		return nil
	}
	return os.WriteFile(path, []byte(content), 0o600)
}

// shellQuote quotes s for sh.
func shellQuote(s string) string {
	if s != "" && !strings.ContainsFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || slices.Contains([]rune("/._-+=:,@"), r))
	}) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
