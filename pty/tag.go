package pty

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Tagged returns the processes whose environment holds a variable key,
// mapped to its value. Environments of other users' processes cannot be
// read and are skipped: the tag finds what the server's own user started.
//
// An environment tag is how descendants that left their process group and
// session (setsid, daemons) are still found: it survives forks and setsid,
// though not a program that clears its environment.
func Tagged(key string) map[int]string {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	prefix := []byte(key + "=")
	found := make(map[int]string)
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil {
			continue
		}
		for kv := range bytes.SplitSeq(env, []byte{0}) {
			if v, ok := bytes.CutPrefix(kv, prefix); ok {
				found[pid] = string(v)
				break
			}
		}
	}
	return found
}

// StartTime returns when process pid started, in clock ticks since boot:
// with the pid it identifies a process even after the pid is reused.
func StartTime(pid int) (uint64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name may hold spaces and parentheses: fields start after
	// the last ')'. starttime is field 22, the 20th after the name.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, fmt.Errorf("parsing /proc/%d/stat", pid)
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 20 {
		return 0, fmt.Errorf("parsing /proc/%d/stat", pid)
	}
	return strconv.ParseUint(f[19], 10, 64)
}
