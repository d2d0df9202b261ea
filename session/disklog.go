package session

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// diskLog appends processes' clean, redacted logs to files in one
// directory: one file per name (so a name's runs, restarts included, follow
// each other in one file) or per process id. A file that would grow past
// max is rotated: the previous one is kept as <file>.1. The directory is
// created 0700, the files 0600.
type diskLog struct {
	dir string
	max int64

	mu    sync.Mutex
	made  bool
	files map[string]*logFile
}

type logFile struct {
	f     *os.File
	size  int64
	users int
	err   error // the first write error; later writes are skipped
}

func newDiskLog(dir string, max int64) *diskLog {
	return &diskLog{dir: dir, max: max, files: make(map[string]*logFile)}
}

// path is where p's log goes.
func (d *diskLog) path(p *Process) string {
	base := p.ID
	if p.Name != "" {
		base = sanitizeFileName(p.Name)
	}
	return filepath.Join(d.dir, base+".log")
}

// sanitizeFileName keeps letters, digits, '.', '-' and '_' and replaces the
// rest, so a name can never leave the directory.
func sanitizeFileName(name string) string {
	var b strings.Builder
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
			b.WriteRune(r)
		case r == '.' && b.Len() > 0:
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
		if b.Len() >= 100 {
			break
		}
	}
	return b.String()
}

// open returns the file at path, opened for appending, with one more user.
func (d *diskLog) open(path string) (*logFile, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if lf := d.files[path]; lf != nil {
		lf.users++
		return lf, nil
	}
	if !d.made {
		if err := os.MkdirAll(d.dir, 0o700); err != nil {
			return nil, fmt.Errorf("creating log directory: %w", err)
		}
		d.made = true
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("opening log file: %w", err)
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
func (d *diskLog) close(path string, lf *logFile) {
	d.mu.Lock()
	defer d.mu.Unlock()
	lf.users--
	if lf.users == 0 {
		_ = lf.f.Close()
		delete(d.files, path)
	}
}

// write appends b, rotating first if the file would grow past the cap.
func (d *diskLog) write(path string, lf *logFile, b []byte) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if lf.err != nil || len(b) == 0 {
		return lf.err
	}
	if lf.size > 0 && lf.size+int64(len(b)) > d.max {
		lf.err = d.rotate(path, lf)
		if lf.err != nil {
			return lf.err
		}
	}
	n, err := lf.f.Write(b)
	lf.size += int64(n)
	if err != nil {
		lf.err = fmt.Errorf("writing log file: %w", err)
	}
	return lf.err
}

func (d *diskLog) rotate(path string, lf *logFile) error {
	_ = lf.f.Close()
	if err := os.Rename(path, path+".1"); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("rotating log file: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("rotating log file: %w", err)
	}
	lf.f, lf.size = f, 0
	return nil
}

// LogPath returns the file p's log is written to, or "" when logs are not
// written to disk.
func (m *Manager) LogPath(p *Process) string {
	if m.disk == nil {
		return ""
	}
	return m.disk.path(p)
}

// followToDiskLocked starts the writer that copies p's log to disk. Called
// with m.mu held, before shutdown began.
func (m *Manager) followToDiskLocked(p *Process) {
	if d := m.disk; d != nil {
		m.writers.Go(func() { m.copyToDisk(d, p) })
	}
}

// copyToDisk follows p's log from its first byte and appends it to p's
// file until p has ended and everything is written. It reads the log the
// way a reader does, outside the output path, so a slow disk never holds up
// the program; if it falls behind by more than the log retains, the file
// says how much is missing.
func (m *Manager) copyToDisk(d *diskLog, p *Process) {
	path := d.path(p)
	lf, err := d.open(path)
	if err != nil {
		m.log.Warn("log file", "process_id", p.ID, "error", err)
		return
	}
	defer d.close(path, lf)
	write := func(b []byte) bool {
		if err := d.write(path, lf, b); err != nil {
			m.log.Warn("log file", "process_id", p.ID, "path", path, "error", err)
			return false
		}
		return true
	}
	if !write(fmt.Appendf(nil, "--- yieldshell: %s started %s in %s: %s\n",
		p.ID, p.StartedAt.UTC().Format(time.RFC3339), p.Cwd, p.Command)) {
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
		buf, pos, lost, ended = p.logSince(buf[:0], pos)
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
	in := p.Info()
	end := fmt.Sprintf("--- yieldshell: %s %s", p.ID, in.Status)
	if in.ExitCode != nil {
		end += fmt.Sprintf(", exit code %d", *in.ExitCode)
	}
	if in.Signal != "" {
		end += ", signal " + in.Signal
	}
	if in.EndedBy != "" {
		end += ", ended by " + string(in.EndedBy)
	}
	end += " ---\n"
	if last != '\n' {
		end = "\n" + end
	}
	write([]byte(end))
}

// logSince waits until p's log has bytes past pos or p has ended, and
// appends the bytes from pos on, both streams in log order, to buf. It
// returns the position after them, how many bytes from pos on were evicted
// before they could be read, and whether p had ended (then everything it
// will ever log is included).
func (p *Process) logSince(buf []byte, pos int64) ([]byte, int64, int64, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for p.log.end <= pos && !p.lc.ended() {
		ch := p.changed
		p.mu.Unlock()
		<-ch
		p.mu.Lock()
	}
	var lost int64
	if pos < p.log.start {
		lost = p.log.start - pos
		pos = p.log.start
	}
	for c := range p.log.chunks(pos) {
		end := c.pos + int64(len(c.data))
		if end <= pos {
			continue
		}
		buf = append(buf, c.data[pos-c.pos:]...)
		pos = end
	}
	return buf, pos, lost, p.lc.ended()
}

// TailCommand returns a shell command that follows p's log file as it
// grows (across rotations), or "" when logs are not written to disk.
func (m *Manager) TailCommand(p *Process) string {
	path := m.LogPath(p)
	if path == "" {
		return ""
	}
	return "tail -n 100 -F '" + strings.ReplaceAll(path, "'", `'\''`) + "'"
}
