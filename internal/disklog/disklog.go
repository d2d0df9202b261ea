// Package disklog appends processes' clean, redacted logs to files in one
// directory, for people to follow with tail -F (YIELDSHELL_LOG_DIR).
package disklog

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/yieldshell/yieldshell/internal/safetext"
)

// Dir appends processes' clean, redacted logs to files in one
// directory: one file per name (so a name's runs, restarts included, follow
// each other in one file) or per process id. A file that would grow past
// max is rotated: the previous one is kept as <file>.1. The directory is
// created 0700, the files 0600.
//
// The directory may be one others can reach, so nothing in it is taken on
// trust: it must be a real directory of this user that nobody else can
// write to, every file is opened through it without following a link and
// must be a regular file of this user, and rotation renames within it and
// creates the new file exclusively, so a planted link or file is refused
// rather than written through.
type Dir struct {
	dir     string
	max     int64
	log     *slog.Logger
	writers sync.WaitGroup // one per process followed; the Manager joins them

	mu    sync.Mutex
	files map[string]*logFile
}

type logFile struct {
	f     *os.File
	size  int64
	users int
	err   error // the first write error; later writes are skipped
}

// New returns the log directory dir, whose files are rotated past max
// bytes (0: never).
func New(dir string, max int64, log *slog.Logger) *Dir {
	if max <= 0 {
		max = math.MaxInt64 // no cap
	}
	return &Dir{dir: dir, max: max, log: log, files: make(map[string]*logFile)}
}

// Run is the run of a process a log file follows.
type Run struct {
	ID, Name, Cwd, Command string
	StartedAt              time.Time
	// Since waits until the run's log has bytes past pos or the run has
	// ended, and appends the bytes from pos on to buf. It returns the
	// position after them, how many bytes from pos on were evicted before
	// they could be read, and whether the run had ended.
	Since func(buf []byte, pos int64) (out []byte, next, lost int64, ended bool)
	// End says how the run ended, once Since reported that it had.
	End func() End
}

// End is how a run ended, as its file's last line says.
type End struct {
	Status          string
	ExitCode        *int
	Signal, EndedBy string
}

// Path is where the log of the process with id and name (may be "") goes.
func (d *Dir) Path(id, name string) string {
	base := id
	if name != "" {
		base = sanitizeFileName(name)
	}
	return filepath.Join(d.dir, base+".log")
}

// sanitizeFileName keeps letters, digits, '-', '_' and (not first) '.',
// and writes every other byte as %XX, so a name can never leave the
// directory and two names never share a file. A name that begins like a
// process id ("proc_") has its first byte written as %70 too, so that no
// name shares the file of a process without one (issue 30 item 7). A long
// name is cut and ends with a hash of the whole.
func sanitizeFileName(name string) string {
	var b strings.Builder
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case i == 0 && strings.HasPrefix(name, "proc_"):
			fmt.Fprintf(&b, "%%%02X", c)
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '-', c == '_':
			b.WriteByte(c)
		case c == '.' && i > 0:
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	if b.Len() <= 100 {
		return b.String()
	}
	sum := sha256.Sum256([]byte(name))
	return b.String()[:80] + "-" + hex.EncodeToString(sum[:8])
}

// open returns the file at path, opened for appending, with one more user.
func (d *Dir) open(path string) (*logFile, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if lf := d.files[path]; lf != nil {
		lf.users++
		return lf, nil
	}
	dir, err := openDir(d.dir)
	if err != nil {
		return nil, err
	}
	defer dir.Close()
	f, err := openIn(dir, filepath.Base(path))
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("opening log file: %w", err)
	}
	lf := &logFile{f: f, size: fi.Size(), users: 1}
	d.files[path] = lf
	return lf, nil
}

// close gives up one use of the file at path, closing it after the last.
func (d *Dir) close(path string, lf *logFile) {
	d.mu.Lock()
	defer d.mu.Unlock()
	lf.users--
	if lf.users == 0 {
		_ = lf.f.Close()
		delete(d.files, path)
	}
}

// write appends b, rotating whenever the file would grow past the cap: a
// write larger than the cap is split across files.
func (d *Dir) write(path string, lf *logFile, b []byte) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	for len(b) > 0 && lf.err == nil {
		if lf.size >= d.max {
			if lf.err = d.rotate(path, lf); lf.err != nil {
				break
			}
		}
		part := b[:min(int64(len(b)), d.max-lf.size)]
		n, err := lf.f.Write(part)
		lf.size += int64(n)
		b = b[n:]
		if err != nil {
			lf.err = fmt.Errorf("writing log file: %w", err)
		}
	}
	return lf.err
}

// errInUse: another process holds a log file and will not let it be
// renamed (Windows only: on Unix an open file can always be renamed).
var errInUse = errors.New("the file is in use")

// rotate renames the file to <file>.1 within the directory and creates a
// new one in its place, refusing one that appeared meanwhile.
func (d *Dir) rotate(path string, lf *logFile) error {
	_ = lf.f.Close()
	dir, err := openDir(d.dir)
	if err != nil {
		return fmt.Errorf("rotating log file: %w", err)
	}
	defer dir.Close()
	name := filepath.Base(path)
	create := createIn
	if err := renameIn(dir, name, name+".1"); errors.Is(err, errInUse) {
		// Windows: a reader (PowerShell's Get-Content -Wait) holds the
		// file without letting it be renamed. Losing output would be worse
		// than a long file: append on and try again after another cap.
		create = openIn
	} else if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("rotating log file: %w", err)
	}
	f, err := create(dir, name)
	if err != nil {
		return fmt.Errorf("rotating log file: %w", err)
	}
	lf.f, lf.size = f, 0
	return nil
}

// Follow starts the writer that copies r's log to disk; Wait joins it.
func (d *Dir) Follow(r Run) {
	d.writers.Go(func() { d.copy(r) })
}

// Wait waits for every writer to finish: each does once its run has
// ended and everything is written.
func (d *Dir) Wait() { d.writers.Wait() }

// copy follows p's log from its first byte and appends it to p's
// file until p has ended and everything is written. It reads the log the
// way a reader does, outside the output path, so a slow disk never holds up
// the program; if it falls behind by more than the log retains, the file
// says how much is missing.
func (d *Dir) copy(p Run) {
	path := d.Path(p.ID, p.Name)
	lf, err := d.open(path)
	if err != nil {
		d.log.Warn("log file", "process_id", p.ID, "error", err)
		return
	}
	defer d.close(path, lf)
	write := func(b []byte) bool {
		if err := d.write(path, lf, b); err != nil {
			d.log.Warn("log file", "process_id", p.ID, "path", path, "error", err)
			return false
		}
		return true
	}
	// The header is one line, and the command's escapes are shown, not
	// sent to whoever runs tail -F on the file.
	if !write(fmt.Appendf(nil, "--- yieldshell: %s started %s in %s: %s\n",
		p.ID, p.StartedAt.UTC().Format(time.RFC3339), safetext.Visible(p.Cwd), safetext.Visible(p.Command))) {
		return
	}
	var (
		pos   int64
		buf   []byte
		last  byte = '\n'
		ended bool
	)
	for !ended {
		var lost int64
		buf, pos, lost, ended = p.Since(buf[:0], pos)
		if lost > 0 && !write(fmt.Appendf(nil, "\n--- yieldshell: %d bytes of output not written (evicted before they reached the disk) ---\n", lost)) {
			return
		}
		if len(buf) > 0 {
			last = buf[len(buf)-1]
			if !write(buf) {
				return
			}
		}
	}
	in := p.End()
	end := fmt.Sprintf("--- yieldshell: %s %s", p.ID, in.Status)
	if in.ExitCode != nil {
		end += fmt.Sprintf(", exit code %d", *in.ExitCode)
	}
	if in.Signal != "" {
		end += ", signal " + in.Signal
	}
	if in.EndedBy != "" {
		end += ", ended by " + in.EndedBy
	}
	end += " ---\n"
	if last != '\n' {
		end = "\n" + end
	}
	write([]byte(end))
}
