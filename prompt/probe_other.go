//go:build !linux

package prompt

// Inspect cannot ask the kernel on this system: programs are judged by
// their marks and the shape of their last line alone.
func Inspect(in Input) Probe { return Probe{Activity: Unknown} }

// Switches is not known on this system.
func Switches(t Task) (uint64, bool) { return 0, false }
