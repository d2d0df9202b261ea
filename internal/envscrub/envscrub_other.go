//go:build !linux

package envscrub

func scrubInitial([]string) error { return nil }
