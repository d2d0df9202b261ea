//go:build unix && !linux

package httpserve

// readOnlyMount reports whether p is on a read-only mount; only Linux is
// asked (containers), elsewhere every mount counts as writable.
func readOnlyMount(string) bool { return false }
