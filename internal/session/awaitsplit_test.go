package session

import (
	"regexp"
	"testing"
	"testing/synctest"
	"time"
)

// A pattern split between the log and the screen is still found: an
// answer's snapshot commits the line the program is writing so far ("g"),
// the rest of the line stays on the screen (rows are committed lazily), and
// nothing more is printed. The wait used to look at the committed part and
// at the screen's part each on its own, and ran to its deadline with the
// whole line in the log (wait until after a write, 1 run in 15).
func TestAwaitPatternAcrossACommit(t *testing.T) {
	for cut := range len("got again") + 1 {
		synctest.Test(t, func(t *testing.T) {
			m, e, _ := fakeManager(t, nil, nil)
			p, f := startFake(t, m, e, spec("serve", true))
			defer f.exit(0)
			f.print("port 1\r\nagain\r\n")
			synctest.Wait()
			from := p.LogEnd()
			done := make(chan Outcome, 1)
			go func() {
				done <- p.Await(t.Context(), time.Now().Add(5*time.Second), Until{Pattern: regexp.MustCompile("got again"), From: from})
			}()
			synctest.Wait()
			line := "got again\r\n"
			f.print(line[:cut])
			synctest.Wait()
			p.Snapshot(Query{Streams: Both}) // a read, ps or progress notification
			f.print(line[cut:])
			o := <-done
			if o.Reason != ReasonPattern || o.Line != "got again" {
				out := p.Snapshot(Query{Since: &from, MaxBytes: 1000, Streams: Both})
				t.Errorf("cut after %q: %s %q, want pattern; the log holds %q", line[:cut], o.Reason, o.Line, out.Stdout)
			}
		})
	}
}
