//go:build !linux

package proc

// Subreaper reports whether this process is a child subreaper, which only
// Linux has.
func Subreaper() bool { return false }
