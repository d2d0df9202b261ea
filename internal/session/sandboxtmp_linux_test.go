package session

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/yieldshell/yieldshell/internal/sandbox"
)

// Each confined process has a TMPDIR of its own, made before it starts
// (from the spare made while the previous one ran), writable by it alone
// of the paths outside its roots; shutdown removes them all, spare too.
func TestSandboxTmpDirs(t *testing.T) {
	if g := sandbox.Probe().Gaps(); len(g) > 0 {
		t.Skip(g)
	}
	m := newTestManager(t, nil)
	var dirs []string
	for range 3 {
		_, info, out := run(t, m, Spec{Command: `echo "$TMPDIR"; echo x > "$TMPDIR/f" && cat "$TMPDIR/f"`,
			SideEffects: []string{"NONE"}, Sandbox: "workspace-write"})
		lines := strings.Split(strings.TrimSpace(string(out.Stdout)), "\n")
		if info.ExitCode == nil || *info.ExitCode != 0 || len(lines) != 2 || lines[1] != "x" {
			t.Fatalf("exit %v, stdout %q", info.ExitCode, out.Stdout)
		}
		dirs = append(dirs, lines[0])
	}
	parent := filepath.Dir(dirs[0])
	for i, d := range dirs {
		if filepath.Dir(d) != parent || (i > 0 && d == dirs[i-1]) {
			t.Errorf("TMPDIRs %q: want distinct directories of one parent", dirs)
		}
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	m.Shutdown(ctx)
	if _, err := os.Stat(parent); !os.IsNotExist(err) {
		t.Errorf("after shutdown %s: %v, want removed", parent, err)
	}
}
