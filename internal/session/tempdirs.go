package session

import (
	"github.com/yieldshell/yieldshell/internal/safedir"

	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strconv"

	"github.com/yieldshell/yieldshell/pty"
)

// Temporary directories a server makes (the shell-integration files, the
// shell-yeah toolset's logs, the sandbox's TMPDIRs) carry the server's pid and start time in their
// name, so that the next server can tell, beyond doubt, that their owner
// has died (a SIGKILL leaves them behind) and remove them: the pid alone
// could have been reused; pid and start time together name one process.
var tempDirName = regexp.MustCompile(`^yieldshell-(shell|logs|sandbox)-([0-9]+)-([0-9]+)-[0-9]+$`)

// NewTempDir makes a private (0700) temporary directory for this server,
// named for what it holds ("shell", "logs" or "sandbox") and for this process, so
// that SweepTempDirs can remove it once this process is dead.
func NewTempDir(kind string) (string, error) {
	pid := os.Getpid()
	start, err := pty.StartTime(pid)
	if err != nil {
		return "", fmt.Errorf("reading our own start time: %w", err)
	}
	return os.MkdirTemp("", fmt.Sprintf("yieldshell-%s-%d-%d-", kind, pid, start))
}

// SweepTempDirs removes the temporary directories (NewTempDir) of servers
// of this user that are provably dead: the process their name records is
// gone, or another process now has its pid. It returns how many it removed.
// Directories of other users, of a live server, or with other names are
// left alone.
func SweepTempDirs(log *slog.Logger) int {
	tmp := os.TempDir()
	entries, err := os.ReadDir(tmp)
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range entries {
		m := tempDirName.FindStringSubmatch(e.Name())
		if m == nil || !e.IsDir() {
			continue
		}
		pid, err1 := strconv.Atoi(m[2])
		start, err2 := strconv.ParseUint(m[3], 10, 64)
		if err1 != nil || err2 != nil || pty.Alive(pid, start) {
			continue
		}
		path := filepath.Join(tmp, e.Name())
		if !safedir.OwnDir(path) {
			continue
		}
		if err := os.RemoveAll(path); err != nil {
			log.Warn("removing a dead server's temporary directory", "dir", path, "error", err)
			continue
		}
		n++
	}
	if n > 0 {
		log.Info("removed temporary directories of servers that are gone", "count", n)
	}
	return n
}
