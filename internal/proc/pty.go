package proc

import (
	"bytes"
	"os"
	"strconv"
	"strings"
)

// PtyMasters returns the indexes of the pseudo-terminals whose master side
// process pid holds, looking at its first max descriptors: a descriptor
// that links to /dev/ptmx (or /dev/pts/ptmx) is a master, and its fdinfo's
// "tty-index:" line names the terminal, /dev/pts/<index>. A process whose
// descriptors cannot be read (another user's) holds none that are seen.
func PtyMasters(pid, max int) []int {
	dir := path(pid, "fd/")
	f, err := os.Open(dir)
	if err != nil {
		return nil
	}
	names, _ := f.Readdirnames(max)
	_ = f.Close()
	var out []int
	for _, n := range names {
		l, err := os.Readlink(dir + n)
		if err != nil || l != "/dev/ptmx" && l != "/dev/pts/ptmx" {
			continue
		}
		b, err := os.ReadFile(path(pid, "fdinfo/"+n))
		if err != nil {
			continue
		}
		if i, ok := TTYIndex(b); ok {
			out = append(out, i)
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
