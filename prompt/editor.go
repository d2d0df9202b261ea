package prompt

import "strings"

// nodeEditorBanner is what node's REPL prints on .editor: it then reads
// code with no prompt at all until Ctrl-D (or Ctrl-C) ends the mode.
const nodeEditorBanner = "// Entering editor mode (Ctrl+D to finish, Ctrl+C to cancel)"

// maxEditorLines bounds how far above the cursor inEditorMode looks.
const maxEditorLines = 200

// inEditorMode reports whether the lines above the cursor (oldest first,
// the cursor's own line left out) show a REPL in a mode that reads lines
// without a prompt: node's .editor, entered and not left, since no REPL
// prompt came after its banner. The cursor's line says nothing then (it is
// empty, or what was typed so far), so only the lines above can.
func inEditorMode(above []string) bool {
	for i := len(above) - 1; i >= 0 && i >= len(above)-maxEditorLines; i-- {
		switch l := above[i]; {
		case l == nodeEditorBanner:
			return true
		case strings.HasPrefix(l, "> "), l == ">":
			return false // the REPL's prompt: the mode ended before
		}
	}
	return false
}
