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
	// ctx cuts the grace short, never a scan: what is left must be found.
	scan := context.WithoutCancel(ctx)
	signal := func(sig syscall.Signal) int {
		n := 0
		for pid, v := range pty.Tagged(scan, tagKey) {
			if match(v) && pty.KillPid(pid, sig) == nil {
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

// SweepOrphans starts the sweep of processes tagged by a server that no
// longer runs: what a server killed outright (SIGKILL, OOM) left behind.
// It logs how many it ended. A server calls it once, at start-up. The
// temporary directories of dead servers (SweepTempDirs) go first.
//
// The sweep reads the environment of every process on the machine, which
// takes time in proportion to their number, so it runs in the background,
// on a goroutine the Manager owns: the server answers initialize without
// waiting for it. Shutdown stops it (between two processes) and joins it.
// Running beside this server's own commands is safe: their tag names this
// server, which is alive, and a process is ended only when the server its
// tag names is gone.
func (m *Manager) SweepOrphans() {
	m.janitor.Go(func() {
		SweepTempDirs(m.log)
		sweepOrphans(m.life, m.log)
	})
}

// sweepOrphans is the sweep itself; it returns early when ctx is done.
func sweepOrphans(ctx context.Context, log *slog.Logger) int {
	n := 0
	for pid, v := range pty.Tagged(ctx, tagKey) {
		if ctx.Err() != nil {
			break
		}
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
		if pty.KillPid(pid, syscall.SIGKILL) == nil {
			n++
		}
	}
	if n > 0 {
		log.Info("ended processes left behind by a server that is gone", "count", n)
	}
	return n
}
