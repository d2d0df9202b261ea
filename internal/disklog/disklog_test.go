package disklog

import (
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/yieldshell/yieldshell/internal/testdir"
)

// TestDiskLogRefusesLinks: a log file planted as a symlink is refused,
// and what it points to is left as it was.
func TestDiskLogRefusesLinks(t *testing.T) {
	dir := testdir.New(t)
	victim := filepath.Join(testdir.New(t), "bashrc")
	if err := os.WriteFile(victim, []byte("precious\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	testdir.Symlink(t, victim, filepath.Join(dir, "web.log"))
	d := New(dir, 1<<20, slog.New(slog.DiscardHandler))
	if lf, err := d.open(filepath.Join(dir, "web.log")); err == nil {
		_ = d.write(filepath.Join(dir, "web.log"), lf, []byte("output\n"))
		t.Error("a symlinked log file was opened")
	}
	if b, _ := os.ReadFile(victim); string(b) != "precious\n" {
		t.Errorf("the link's target now holds %q", b)
	}
}

// TestDiskLogRefusesSharedDirectory: a directory others can write to, or
// a symlink to a directory, is refused.
func TestDiskLogRefusesSharedDirectory(t *testing.T) {
	if runtime.GOOS != "windows" { // where an ACL, not the mode, says who may write
		shared := testdir.New(t)
		if err := os.Chmod(shared, 0o777); err != nil {
			t.Fatal(err)
		}
		if _, err := New(shared, 1<<20, slog.New(slog.DiscardHandler)).open(filepath.Join(shared, "a.log")); err == nil || !strings.Contains(err.Error(), "others can write") {
			t.Errorf("a world-writable directory: %v", err)
		}
	}
	link := filepath.Join(testdir.New(t), "logs")
	testdir.Symlink(t, testdir.New(t), link)
	if _, err := New(link, 1<<20, slog.New(slog.DiscardHandler)).open(filepath.Join(link, "a.log")); err == nil {
		t.Error("a symlinked log directory was used")
	}
	private := filepath.Join(testdir.New(t), "new")
	d := New(private, 1<<20, slog.New(slog.DiscardHandler))
	lf, err := d.open(filepath.Join(private, "a.log"))
	if err != nil {
		t.Fatalf("a directory of its own: %v", err)
	}
	d.close(filepath.Join(private, "a.log"), lf)
}

// TestDiskLogRotation: no file grows past the cap, even from one large
// write, and rotating through a file replaced by a link truncates nothing.
func TestDiskLogRotation(t *testing.T) {
	d, path, lf := openTestLog(t, testdir.New(t), 100)
	if err := d.write(path, lf, []byte(strings.Repeat("x", 2050))); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, path + ".1"} {
		if fi, err := os.Stat(p); err != nil || fi.Size() > 100 {
			t.Errorf("%s: %v, size %d; want at most 100", filepath.Base(p), err, fi.Size())
		}
	}
	// Someone swaps the file for a link before the next rotation.
	victim := filepath.Join(testdir.New(t), "victim")
	if err := os.WriteFile(victim, []byte("precious\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	testdir.Symlink(t, victim, path)
	_ = d.write(path, lf, []byte(strings.Repeat("y", 300)))
	if b, _ := os.ReadFile(victim); string(b) != "precious\n" {
		t.Errorf("the link's target now holds %q", b)
	}
}

// openTestLog opens web.log in dir, capped at max bytes, until the test ends.
func openTestLog(t *testing.T, dir string, max int64) (*Dir, string, *logFile) {
	t.Helper()
	path := filepath.Join(dir, "web.log")
	d := New(dir, max, slog.New(slog.DiscardHandler))
	lf, err := d.open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.close(path, lf) })
	return d, path, lf
}

// A process named like another process's id does not share its log file:
// issue 30 item 7.
func TestNameLikeAnIDGetsItsOwnFile(t *testing.T) {
	d := New(testdir.New(t), 0, slog.New(slog.DiscardHandler))
	const id = "proc_1bf49afd91db"
	if byID, byName := d.Path(id, ""), d.Path("proc_0000000000aa", id); byID == byName {
		t.Errorf("the name %q and the id %q share %s", id, id, byID)
	}
	if got := filepath.Base(d.Path("proc_x", "web")); got != "web.log" {
		t.Errorf("an ordinary name's file: %s", got)
	}
}

func TestSanitizeFileName(t *testing.T) {
	seen := map[string]string{}
	long := strings.Repeat("n", 150)
	for _, name := range []string{"a/b", "a?b", "a_b", "a%2Fb", "..", ".hidden", "web", "ü", long, long + "x"} {
		got := sanitizeFileName(name)
		if strings.ContainsAny(got, "/\x00") || strings.HasPrefix(got, ".") || len(got) > 100 {
			t.Errorf("sanitizeFileName(%q) = %q", name, got)
		}
		if other, ok := seen[got]; ok {
			t.Errorf("%q and %q share the file %q", name, other, got)
		}
		seen[got] = name
	}
}

// TestDiskLogRefusesSwappableParent: a private log directory under a parent
// another user can write to (not sticky) is refused: they could swap the
// directory between two opens. Issue 30 item 7: only the last component of
// YIELDSHELL_LOG_DIR was checked.
func TestDiskLogRefusesSwappableParent(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("an ACL, not the mode, says who may write")
	}
	parent := testdir.New(t)
	if err := os.Chmod(parent, 0o777); err != nil {
		t.Fatal(err)
	}
	for _, logs := range []string{filepath.Join(parent, "logs"), filepath.Join(parent, "a", "b", "logs")} {
		if err := os.MkdirAll(logs, 0o700); err != nil {
			t.Fatal(err)
		}
		_, err := New(logs, 1<<20, slog.New(slog.DiscardHandler)).open(filepath.Join(logs, "a.log"))
		if err == nil || !strings.Contains(err.Error(), "writable by other users") {
			t.Errorf("%s under a world-writable parent: %v", logs, err)
		}
	}
}

// TestDiskLogHeaderShowsEscapes: the header line names the command with
// its control characters shown, so tail -F on the file cannot be made to
// clear the screen or retitle the terminal (issue 30 item 7), and stays
// one line. The output that follows is the program's, as it was.
func TestDiskLogHeaderShowsEscapes(t *testing.T) {
	dir := testdir.New(t)
	d := New(dir, 1<<20, slog.New(slog.DiscardHandler))
	d.Follow(Run{ID: "proc_1", Cwd: "/tmp/\x1b[2J", Command: "printf '\x1b]0;owned\x07'\necho \u009b31m",
		StartedAt: time.Unix(0, 0),
		Since: func(buf []byte, pos int64) ([]byte, int64, int64, bool) {
			return append(buf, "out\n"...), pos + 4, 0, true
		},
		End: func() End { return End{Status: "completed"} }})
	d.Wait()
	b, err := os.ReadFile(d.Path("proc_1", ""))
	if err != nil {
		t.Fatal(err)
	}
	header, rest, _ := strings.Cut(string(b), "\n")
	if want := `--- yieldshell: proc_1 started 1970-01-01T00:00:00Z in /tmp/\x1b[2J: printf '\x1b]0;owned\x07'\necho \u009b31m`; header != want {
		t.Errorf("header %q\nwant   %q", header, want)
	}
	if !strings.HasPrefix(rest, "out\n--- yieldshell: proc_1 completed") {
		t.Errorf("after the header: %q", rest)
	}
}
