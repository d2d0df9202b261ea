//go:build !linux

package prompt

// Programs is not known on this system.
func (pr *Prober) Programs(in Input) []string { return nil }

// Listening is not known on this system: a server is told by the shortcut
// hint it prints (servingHint) alone.
func (pr *Prober) Listening(sid int) []int { return nil }
