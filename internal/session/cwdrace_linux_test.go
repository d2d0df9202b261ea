package session

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/yieldshell/yieldshell/internal/policy"
)

// A cwd inside an allowed root never runs outside it, even while another
// process swaps a directory of its path for a link that points out of the
// root, as fast as it can: policy resolves the path and checks it, and the
// command starts in the directory that was checked or not at all (issue 30
// item 7: 1 start in 300 escaped).
func TestCwdSwappedForALinkNeverEscapesTheRoot(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root, outside := filepath.Join(base, "root"), filepath.Join(base, "outside")
	for _, d := range []string{filepath.Join(root, "a", "b"), filepath.Join(outside, "b")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	dir, swap := filepath.Join(root, "a"), filepath.Join(root, "swap")
	if err := os.Symlink(outside, swap); err != nil {
		t.Fatal(err)
	}
	if err := unix.Renameat2(unix.AT_FDCWD, dir, unix.AT_FDCWD, swap, unix.RENAME_EXCHANGE); err != nil {
		t.Skip("no RENAME_EXCHANGE here:", err)
	}
	m := newTestManager(t, map[string]string{"YIELDSHELL_ALLOWED_CWDS": root})

	// The swapper exchanges root/a (the directory) and root/swap (the
	// link to outside) until the starts are done.
	ctx, stop := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	wg.Go(func() {
		for ctx.Err() == nil {
			_ = unix.Renameat2(unix.AT_FDCWD, dir, unix.AT_FDCWD, swap, unix.RENAME_EXCHANGE)
		}
	})
	t.Cleanup(func() { stop(); wg.Wait() })

	// 300 that run, 50 with -short (bounded in time: most of the others
	// are refused).
	starts := 300
	if testing.Short() {
		starts = 50
	}
	deadline := time.Now().Add(15 * time.Second)
	ran, refused := 0, 0
	for i := 0; ran < starts && time.Now().Before(deadline); i++ {
		// The kernel's word (getcwd), not bash's pwd builtin: bash keeps
		// the path string it found at start-up, and its "pwd -P"
		// resolves that string's links again, by now swapped.
		p, err := m.Start(t.Context(), Spec{Command: "/bin/pwd -P", SideEffects: []string{"NONE"}, Cwd: filepath.Join(dir, "b")})
		if err != nil {
			var r *policy.Refusal
			if !errors.As(err, &r) && !strings.Contains(err.Error(), "chdir") {
				t.Fatalf("start %d: %v", i, err)
			}
			refused++
			continue
		}
		if r := p.WaitEnd(t.Context(), time.Now().Add(10*time.Second)); r != ReasonExited {
			t.Fatalf("start %d did not end: %s", i, r)
		}
		zero := int64(0)
		out := p.Snapshot(Query{Since: &zero, MaxBytes: 4096, Streams: Both})
		got := strings.TrimSpace(string(out.Stdout))
		if !strings.HasPrefix(got, root+string(filepath.Separator)) {
			t.Fatalf("start %d (%d ran, %d refused) ran in %q, outside the allowed root %s (stderr %q)", i, ran, refused, got, root, out.Stderr)
		}
		ran++
	}
	stop()
	t.Logf("%d ran inside the root, %d refused", ran, refused)
	if ran == 0 {
		t.Error("no start ran: the test proves nothing")
	}
}
