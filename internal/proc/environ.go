package proc

import (
	"errors"
	"syscall"
	"time"
)

// execWindow bounds how long an EnvReader waits for a process in the
// middle of execve. The window is a few milliseconds on an idle machine and
// was seen at 70 ms on two busy cores; a second is far beyond it and still
// short enough that a process stuck in exec (a binary on a hung network
// mount) does not hold a command's end for long.
const execWindow = time.Second

// maxEnviron bounds an environment read: the kernel's own limit on
// arguments and environment together is a quarter of the stack limit,
// 2 MiB by default.
const maxEnviron = 8 << 20

// EnvReader reads processes' environments, reusing its buffer. The zero
// value is ready to use; it is not safe for concurrent use.
type EnvReader struct{ buf []byte }

// Read returns process pid's environment (NUL-separated), or nil if the
// process is gone or cannot be read. The result is valid until the next
// Read.
//
// An exec replaces the environment under the reader's feet, so:
//   - it is read in one read(2), which sees one image whole (a read in
//     parts can end early when the image it began in is gone, dropping
//     the variables at the end, the tag among them);
//   - once the new image's memory is in place and until its environment
//     is laid out, the file reads empty. /proc/PID/stat tells that apart
//     from a process with no environment at all: the environment's and
//     the code's addresses are zero until the exec is done. An exec is
//     waited out, for execWindow at most;
//   - a process in exit(2) has no memory left to read before it is a
//     zombie: that is waited out too, so it is not taken for a process
//     without the tag while it still holds what it had open.
func (r *EnvReader) Read(pid int) []byte {
	p := path(pid, "environ")
	deadline := time.Now().Add(execWindow)
	if len(r.buf) == 0 {
		r.buf = make([]byte, 16<<10)
	}
	for pause := 100 * time.Microsecond; ; pause = min(2*pause, 5*time.Millisecond) {
		n, err := readOnce(p, r.buf)
		switch {
		case errors.Is(err, syscall.ESRCH):
			// No memory to read: a kernel thread, or a process in exit(2)
			// that released its memory and is not a zombie yet (its
			// state still reads R); the latter is waited out as an exec is.
		case err != nil:
			return nil
		case n == len(r.buf) && n < maxEnviron:
			r.buf = make([]byte, 2*len(r.buf)) // there may be more
			continue
		case n > 0:
			return r.buf[:n]
		}
		noMemory := err != nil
		st, err := ReadStat(pid)
		if err != nil || st.Gone() || noMemory && !st.Exiting() || st.ExecDone() && st.EnvEnd == st.EnvStart || time.Now().After(deadline) {
			return nil // gone, a kernel thread, no environment at all, or stuck
		}
		// In an exec or an exit, or one ended between the reads: look again.
		time.Sleep(pause)
	}
}
