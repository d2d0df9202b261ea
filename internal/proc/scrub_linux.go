package proc

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
)

// scrubInitial zeroes every "NAME=value" entry of names in the block
// between the env_start and env_end addresses of /proc/self/stat, through
// /proc/self/mem. Entries keep their place (each byte of the entry becomes
// NUL), so C code holding pointers into the block reads empty strings.
func scrubInitial(names []string) error {
	start, end, err := envBounds()
	if err != nil {
		return fmt.Errorf("scrubbing the environment: %w", err)
	}
	mem, err := os.OpenFile("/proc/self/mem", os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("scrubbing the environment: %w", err)
	}
	defer mem.Close()
	block := make([]byte, end-start)
	if _, err := mem.ReadAt(block, start); err != nil {
		return fmt.Errorf("scrubbing the environment: reading the block: %w", err)
	}
	off := 0
	for entry := range bytes.SplitSeq(block, []byte{0}) {
		at := off
		off += len(entry) + 1
		name, _, ok := bytes.Cut(entry, []byte("="))
		if !ok || !slices.Contains(names, string(name)) {
			continue
		}
		if _, err := mem.WriteAt(make([]byte, len(entry)), start+int64(at)); err != nil {
			return fmt.Errorf("scrubbing the environment: overwriting an entry: %w", err)
		}
	}
	return nil
}

// envBounds reads env_start and env_end (fields 50 and 51 of
// /proc/self/stat, Linux 3.5 on).
func envBounds() (start, end int64, err error) {
	b, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return 0, 0, err
	}
	// The command name (field 2) is in parentheses and may hold spaces.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0, errors.New("/proc/self/stat: no command field")
	}
	f := strings.Fields(string(b[i+1:])) // f[0] is field 3
	const envStart = 50 - 3
	if len(f) <= envStart+1 {
		return 0, 0, errors.New("/proc/self/stat: no env_start field (kernel before 3.5)")
	}
	if start, err = strconv.ParseInt(f[envStart], 10, 64); err == nil {
		end, err = strconv.ParseInt(f[envStart+1], 10, 64)
	}
	if err == nil && (start <= 0 || end < start) {
		err = errors.New("/proc/self/stat: bad env_start/env_end")
	}
	return start, end, err
}
