package prompt

import (
	"regexp"
	"strings"
)

// hintLines is how many lines above the cursor ServingHint looks at.
const hintLines = 6

// shortcutHint matches the line a server or a watcher prints about the
// keys it reads while it runs: vite's "press h + enter to show help",
// jest's "Press w to show more", "Press Ctrl+C to quit". A key that answers
// a question ("press Enter to continue", "press any key") is not one.
var shortcutHint = regexp.MustCompile(`(?i)\bpress\s+(?:[a-z]|ctrl[+-]c|\^c|[a-z]\s*\+\s*enter)\b[^.]{0,40}?\bto\s+(?:show|quit|exit|stop|restart|reload|open|clear|toggle|see|view|re-?run|run|filter|display|enter|trigger)\b`)

// ServingHint reports whether a program shows a shortcut hint above an empty
// prompt line: it serves (a dev server, a test watcher) and reads its
// terminal only for those keys; it does not wait for an answer. above are
// the lines above the cursor's, oldest first; line is the cursor's.
func ServingHint(above []string, line string) bool {
	if strings.TrimSpace(line) != "" {
		return false
	}
	for i := len(above) - 1; i >= 0 && i >= len(above)-hintLines; i-- {
		if shortcutHint.MatchString(above[i]) {
			return true
		}
	}
	return false
}
