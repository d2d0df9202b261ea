package session

import (
	"context"
	"time"

	"github.com/yieldshell/yieldshell/internal/disklog"
)

// diskRun is p's run as a log file follows it ([disklog.Dir.Follow]).
func (p *Process) diskRun() disklog.Run {
	return disklog.Run{
		ID: p.ID, Name: p.Name, Cwd: p.Cwd, Command: p.Command, StartedAt: p.StartedAt,
		Since: p.logSince,
		End: func() disklog.End {
			in := p.Info()
			return disklog.End{Status: string(in.Status), ExitCode: in.ExitCode, Signal: in.Signal, EndedBy: string(in.EndedBy)}
		},
	}
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
	ctx := context.Background()
	for {
		o := p.Await(ctx, time.Time{}, Until{Output: true, From: pos, Quiet: p.timing.diskCommit})
		if o.Reason != ReasonQuiet {
			break
		}
		p.mu.Lock()
		p.out.flush(p.log)
		grew := p.log.End() > pos
		p.mu.Unlock()
		if grew {
			break
		}
		// Nothing was waiting on the screen: quiet counts again only
		// after the next output.
		p.Await(ctx, time.Time{}, Until{Output: true, From: pos, Next: true})
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	var lost int64
	if pos < p.log.Start() {
		lost = p.log.Start() - pos
		pos = p.log.Start()
	}
	for c := range p.log.Chunks(pos) {
		end := c.Pos + int64(len(c.Data))
		if end <= pos {
			continue
		}
		buf = append(buf, c.Data[pos-c.Pos:]...)
		pos = end
	}
	return buf, pos, lost, p.lc.ended()
}
