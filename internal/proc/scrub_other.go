//go:build !linux

package proc

func scrubInitial([]string) error { return nil }
