package tools

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yieldshell/yieldshell/internal/answer"
	"github.com/yieldshell/yieldshell/internal/session"
)

// progressEvery is how often a blocking call reports progress: often enough
// that a client resetting a 60 s request timeout on progress never fires it.
const progressEvery = time.Second

// progressLineMax bounds the output line quoted in a progress message.
const progressLineMax = 200

// progress starts sending notifications/progress for a call that blocks on
// p, when the request carries a progress token: every interval, the time the
// call has blocked and the newest line of output. The returned function stops
// the reporter and joins it; call it before answering. Without a token it
// does nothing.
func (h *handlers) progress(ctx context.Context, req *mcp.CallToolRequest, p *session.Process) (stop func()) {
	if req == nil || req.Session == nil || req.Params == nil {
		return func() {}
	}
	tok := req.Params.GetProgressToken()
	if tok == nil {
		return func() {}
	}
	every := h.progressEvery
	if every <= 0 {
		every = progressEvery
	}
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() {
		start := time.Now()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			elapsed := time.Since(start)
			msg := fmt.Sprintf("%s running for %ds", p.ID, int(elapsed.Seconds()))
			if line := newestLine(p); line != "" {
				msg += ": " + line
			}
			// Progress must grow with every notification: seconds blocked.
			_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
				ProgressToken: tok, Progress: elapsed.Seconds(), Message: msg})
		}
	})
	return func() {
		cancel()
		wg.Wait()
	}
}

// newestLine is the last non-blank line of p's output, shortened. It
// looks without committing: the rows on the screen count, and the log is
// the same whether a client asks for progress or not.
func newestLine(p *session.Process) string {
	s := p.Snapshot(session.Query{MaxBytes: 4 * progressLineMax, Streams: session.Both, Look: true})
	// Both streams share one position space; in PTY mode everything is in
	// stdout, and what is on the screen comes after the log. Prefer
	// stderr's last line only when stdout has none.
	stdout := s.Stdout
	if len(s.Pending) > 0 {
		stdout = append(append([]byte(nil), stdout...), s.Pending...)
	}
	for _, b := range [][]byte{stdout, s.Stderr} {
		s := strings.TrimRight(answer.ValidText(b), " \t\r\n")
		if s == "" {
			continue
		}
		if i := strings.LastIndexByte(s, '\n'); i >= 0 {
			s = s[i+1:]
		}
		s = strings.TrimSpace(s)
		if r := []rune(s); len(r) > progressLineMax {
			s = string(r[:progressLineMax]) + "…"
		}
		if s != "" {
			return s
		}
	}
	return ""
}
