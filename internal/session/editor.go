package session

import (
	"strings"

	"github.com/yieldshell/yieldshell/internal/prompt"
)

// editorTail is how much of the log above the cursor looksLikePrompt
// reads for a REPL in a mode without a prompt.
const editorTail = 8 << 10

// looksLikePrompt is [prompt.LooksLikePrompt] for the line the cursor is
// on, and, when that line has no prompt, the lines above it for a REPL
// reading in a mode without one (node's .editor, [prompt.InEditorMode]).
func (p *Process) looksLikePrompt(line string) (prompt.Kind, bool) {
	if kind, ok := prompt.LooksLikePrompt(line); ok {
		return kind, true
	}
	p.mu.Lock()
	// What a read would show: the log, then what is on the screen but not
	// in the log yet. It ends with the cursor's own line.
	text := append([]byte(nil), p.log.ReadTail(editorTail, Stdout).Stdout...)
	text = p.out.pending(text)
	p.mu.Unlock()
	above := strings.Split(string(text), "\n")
	above = above[:len(above)-1]
	if prompt.InEditorMode(above) {
		return prompt.KindLine, true
	}
	return "", false
}
