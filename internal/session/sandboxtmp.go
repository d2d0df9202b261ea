package session

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
)

// tmpDirs makes confined processes' private TMPDIRs, one ahead: a mkdir
// waits for the file system's journal, which took 0.5–1.4 ms a start on
// this machine's ext4 while builds wrote beside it, and a start should not
// wait for it. The spare is made after a confined start, while the
// command runs.
type tmpDirs struct {
	mu    sync.Mutex
	dir   string // the server's directory of them; "" until needed
	spare string // made, not yet handed out
	n     int    // names made
	done  bool   // removed at shutdown: make no more

	refilling bool           // the spare is being made
	wg        sync.WaitGroup // the goroutine that makes it
}

// take returns a TMPDIR for one process, made.
func (d *tmpDirs) take() (string, error) {
	d.mu.Lock()
	if d.spare != "" {
		tmp := d.spare
		d.spare = ""
		d.mu.Unlock()
		return tmp, nil
	}
	tmp, err := d.nextLocked()
	d.mu.Unlock()
	if err != nil {
		return "", err
	}
	if err := os.Mkdir(tmp, 0o700); err != nil {
		return "", fmt.Errorf("creating the sandbox's TMPDIR: %w", err)
	}
	return tmp, nil
}

// refill makes the spare the next take hands out, unless there is one
// or it is being made: on a goroutine of its own, which removeAll joins,
// so that neither the start nor its readers wait for it.
func (d *tmpDirs) refill() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.spare != "" || d.refilling || d.dir == "" || d.done {
		return
	}
	tmp, _ := d.nextLocked() // the directory is made: no error
	d.refilling = true
	d.wg.Go(func() {
		err := os.Mkdir(tmp, 0o700)
		d.mu.Lock()
		defer d.mu.Unlock()
		d.refilling = false
		switch {
		case err != nil: // take makes one then, and says why if it cannot
		case d.done:
			_ = os.Remove(tmp)
		default:
			d.spare = tmp
		}
	})
}

// nextLocked names the next TMPDIR, making the server's directory of
// them first if needed (once: NewTempDir reads /proc).
func (d *tmpDirs) nextLocked() (string, error) {
	if d.dir == "" {
		dir, err := NewTempDir("sandbox")
		if err != nil {
			return "", fmt.Errorf("creating the sandbox's TMPDIR: %w", err)
		}
		d.dir = dir
	}
	d.n++
	return filepath.Join(d.dir, "tmp"+strconv.Itoa(d.n)), nil
}

// parent is the server's directory of TMPDIRs; "" before the first.
func (d *tmpDirs) parent() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.dir
}

// removeAll removes every TMPDIR (at shutdown: every confined process is
// closed) and makes no more spares.
func (d *tmpDirs) removeAll() {
	d.mu.Lock()
	d.done = true
	d.mu.Unlock()
	d.wg.Wait()
	if d.dir != "" {
		_ = os.RemoveAll(d.dir)
	}
}
