package session

import (
	"context"
	"log/slog"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/yieldshell/yieldshell/pty"
)

// tagKey names the environment variable that marks every process a server
// started, and all their descendants: "<server pid>:<server start>:<id>".
// It finds descendants that left their process group, and, after a server
// was killed outright, the processes it left behind.
const tagKey = "YIELDSHELL_TAG"

// endTagged sends SIGTERM to every process whose tag matches, and SIGKILL
// to those still there after grace.
func endTagged(ctx context.Context, match func(tag string) bool, grace time.Duration) {
	signal := func(sig syscall.Signal) int {
		n := 0
		for pid, v := range pty.Tagged(tagKey) {
			if match(v) && killPid(pid, sig) == nil {
				n++
			}
		}
		return n
	}
	if signal(syscall.SIGTERM) == 0 {
		return
	}
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
	signal(syscall.SIGKILL)
}

// SweepOrphans kills processes tagged by a server that no longer runs: what
// a server killed outright (SIGKILL, OOM) left behind, and logs how many
// there were. A server calls it once, before it starts processes.
func SweepOrphans(log *slog.Logger) {
	n := 0
	for pid, v := range pty.Tagged(tagKey) {
		if !pty.Owned(pid) {
			continue // another user's or another PID namespace's: its tag's pid is not ours to judge
		}
		spid, rest, ok := strings.Cut(v, ":")
		start, _, ok2 := strings.Cut(rest, ":")
		if !ok || !ok2 {
			continue
		}
		serverPid, err := strconv.Atoi(spid)
		if err != nil {
			continue
		}
		if st, err := strconv.ParseUint(start, 10, 64); err == nil && pty.Alive(serverPid, st) {
			continue // its server is alive (not a zombie) and owns it
		}
		if killPid(pid, syscall.SIGKILL) == nil {
			n++
		}
	}
	if n > 0 {
		log.Info("ended processes left behind by a server that is gone", "count", n)
	}
}
