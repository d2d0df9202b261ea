package session

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// diskLog appends processes' clean, redacted logs to files in one
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
type diskLog struct {
	dir string
	max int64

	mu    sync.Mutex
	files map[string]*logFile
}

type logFile struct {
	f     *os.File
	size  int64
	users int
	err   error // the first write error; later writes are skipped
}

func newDiskLog(dir string, max int64) *diskLog {
	if max <= 0 {
		max = math.MaxInt64 // no cap
	}
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

// sanitizeFileName keeps letters, digits, '-', '_' and (not first) '.',
// and writes every other byte as %XX, so a name can never leave the
// directory and two names never share a file. A long name is cut and ends
// with a hash of the whole.
func sanitizeFileName(name string) string {
	var b strings.Builder
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
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

// openDir opens the log directory, creating it if needed, and checks that
// only this user can change what is in it.
func (d *diskLog) openDir() (*os.File, error) {
	if err := os.MkdirAll(d.dir, 0o700); err != nil {
		return nil, fmt.Errorf("creating log directory: %w", err)
	}
	fd, err := unix.Open(d.dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("opening log directory %s (a symlink is refused): %w", d.dir, err)
	}
	dir := os.NewFile(uintptr(fd), d.dir)
	var st unix.Stat_t
	err = unix.Fstat(fd, &st)
	switch {
	case err != nil:
		err = fmt.Errorf("checking log directory: %w", err)
	case st.Uid != uint32(os.Geteuid()):
		err = fmt.Errorf("log directory %s belongs to uid %d, not to this user: use a directory of your own", d.dir, st.Uid)
	case st.Mode&0o022 != 0:
		err = fmt.Errorf("log directory %s has mode %#o: others can write to it; chmod go-w %s or use a private directory", d.dir, st.Mode&0o7777, d.dir)
	}
	if err != nil {
		dir.Close()
		return nil, err
	}
	return dir, nil
}

// openIn opens name in dir for appending without following a link, and
// checks that it is a regular file of this user. With create it must not
// exist yet.
func openIn(dir *os.File, name string, create bool) (*os.File, error) {
	flags := unix.O_WRONLY | unix.O_APPEND | unix.O_CREAT | unix.O_NOFOLLOW | unix.O_CLOEXEC
	if create {
		flags |= unix.O_EXCL
	}
	fd, err := unix.Openat(int(dir.Fd()), name, flags, 0o600)
	if err != nil {
		return nil, fmt.Errorf("opening log file %s (a symlink is refused): %w", name, err)
	}
	f := os.NewFile(uintptr(fd), filepath.Join(dir.Name(), name))
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG || st.Uid != uint32(os.Geteuid()) {
		f.Close()
		return nil, fmt.Errorf("opening log file %s: not a regular file of this user", name)
	}
	return f, nil
}

// open returns the file at path, opened for appending, with one more user.
func (d *diskLog) open(path string) (*logFile, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if lf := d.files[path]; lf != nil {
		lf.users++
		return lf, nil
	}
	dir, err := d.openDir()
	if err != nil {
		return nil, err
	}
	defer dir.Close()
	f, err := openIn(dir, filepath.Base(path), false)
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
func (d *diskLog) close(path string, lf *logFile) {
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
func (d *diskLog) write(path string, lf *logFile, b []byte) error {
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

// rotate renames the file to <file>.1 within the directory and creates a
// new one in its place, refusing one that appeared meanwhile.
func (d *diskLog) rotate(path string, lf *logFile) error {
	_ = lf.f.Close()
	dir, err := d.openDir()
	if err != nil {
		return fmt.Errorf("rotating log file: %w", err)
	}
	defer dir.Close()
	name := filepath.Base(path)
	if err := unix.Renameat(int(dir.Fd()), name, int(dir.Fd()), name+".1"); err != nil && !errors.Is(err, unix.ENOENT) {
		return fmt.Errorf("rotating log file: %w", err)
	}
	f, err := openIn(dir, name, true)
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
//
// In PTY mode the rows still on the screen are not in the log until
// something commits them (see screen.Cleaner); so that a file followed
// with tail -F does not lag behind a program that printed and went quiet,
// logSince commits them once the output has been quiet for timing.diskCommit.
func (p *Process) logSince(buf []byte, pos int64) ([]byte, int64, int64, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	committed := ^uint64(0) // p.in.outputs at the last commit; unknown at first
	for p.log.end <= pos && !p.lc.ended() {
		ch := p.changed
		if p.in.outputs == committed {
			p.mu.Unlock()
			<-ch
			p.mu.Lock()
			continue
		}
		outputs := p.in.outputs
		p.mu.Unlock()
		quiet := time.NewTimer(p.timing.diskCommit)
		select {
		case <-ch:
			quiet.Stop()
			p.mu.Lock()
		case <-quiet.C:
			p.mu.Lock()
			if p.in.outputs == outputs {
				p.out.flush(p.log)
				committed = outputs
			}
		}
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
