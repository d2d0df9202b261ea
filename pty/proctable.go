package pty

// The process table, as the server needs it to find what it started after a
// crash: environment tags (here), start times and the child subreaper
// (proctable_<os>.go).

import (
	"bytes"
	"context"
	"os"

	"github.com/yieldshell/yieldshell/internal/proc"
)

// Tagged returns the processes whose environment holds a variable key,
// mapped to its value. Environments of other users' processes cannot be
// read and are skipped: the tag finds what the server's own user started.
//
// An environment tag is how descendants that left their process group and
// session (setsid, daemons) are still found: it survives forks and setsid,
// though not a program that clears its environment. It needs Linux's /proc;
// elsewhere it finds nothing, and only process groups are signalled.
//
// The scan costs a read per process on the machine; when ctx is done it
// stops and returns what it found so far.
func Tagged(ctx context.Context, key string) map[int]string {
	pids, err := proc.Pids()
	if err != nil {
		return nil
	}
	prefix := []byte(key + "=")
	found := make(map[int]string)
	var env proc.EnvReader
	for _, pid := range pids {
		if ctx.Err() != nil {
			break
		}
		if pid == os.Getpid() {
			continue
		}
		for kv := range bytes.SplitSeq(env.Read(pid), []byte{0}) {
			if v, ok := bytes.CutPrefix(kv, prefix); ok {
				found[pid] = string(v)
				break
			}
		}
	}
	return found
}
