package pty

import "context"

// Typeahead reports false on Windows: a pseudo console keeps no input
// queue the server can ask about, so input-wait there rests on the prompt
// heuristic and marks alone.
func (p *Process) Typeahead() bool { return false }

// discardUntypedLocked does nothing on Windows: a pseudo console keeps no
// input queue the server can ask about or clean.
func (p *Process) discardUntypedLocked(context.Context) error { return nil }
