package proc

import (
	"bytes"
	"os"
	"strconv"
	"strings"
)

// PtyMaster is a pseudo-terminal master a process holds: its descriptor
// and the terminal's index, /dev/pts/<Index>.
type PtyMaster struct{ FD, Index int }

// PtyMasters returns the pseudo-terminal masters process pid holds,
// looking at its first max descriptors: a descriptor that links to
// /dev/ptmx (or /dev/pts/ptmx) is a master, and its fdinfo's "tty-index:"
// line names the terminal. A process whose descriptors cannot be read
// (another user's) holds none that are seen.
func PtyMasters(pid, max int) []PtyMaster {
	dir := path(pid, "fd/")
	f, err := os.Open(dir)
	if err != nil {
		return nil
	}
	names, _ := f.Readdirnames(max)
	_ = f.Close()
	var out []PtyMaster
	for _, n := range names {
		l, err := os.Readlink(dir + n)
		if err != nil || l != "/dev/ptmx" && l != "/dev/pts/ptmx" {
			continue
		}
		b, err := readFile(path(pid, "fdinfo/"+n), nil)
		if err != nil {
			continue
		}
		fd, err := strconv.Atoi(n)
		if i, ok := TTYIndex(b); ok && err == nil {
			out = append(out, PtyMaster{FD: fd, Index: i})
		}
	}
	return out
}

// TTYIndex reads the "tty-index:" line of a pseudo-terminal master's
// fdinfo (Linux 5.x and later).
func TTYIndex(fdinfo []byte) (int, bool) {
	for line := range bytes.Lines(fdinfo) {
		v, ok := strings.CutPrefix(string(line), "tty-index:")
		if !ok {
			continue
		}
		i, err := strconv.Atoi(strings.TrimSpace(v))
		return i, err == nil && i >= 0
	}
	return 0, false
}

// FDPath is the /proc path of process pid's descriptor fd, which opens the
// file the descriptor names (a terminal a reader holds, say).
func FDPath(pid, fd int) string { return path(pid, "fd/"+strconv.Itoa(fd)) }
