//go:build linux

package conformance

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The real-program tests measure how long after a prompt's bytes the
// waiting answer came. The server's log has no clock, so while a write
// waits for its reply a second caller on the same session reads the log
// every few milliseconds; the reply's last byte (the answer's next_seq)
// was logged after the last read that had not seen it started, so the
// answer came at most answer − that read's start after the prompt's
// bytes. That is an upper bound, a poll interval and a read's round trip
// above the truth, and it is what is reported as after_bytes; the end of
// the first read that had seen them gives a lower bound. Where no read
// ran before the reply's last byte (a reply of only the echo, say), the
// upper bound is the write's whole round trip, which is reported beside
// it (the program's own work included).

// reportEnv names a file each turn and each result is appended to as a
// JSON line, so that runs at -count=N can be summed up afterwards
// (go run ./conformance/testdata/programsreport < file).
const reportEnv = "YS_PROGRAMS_REPORT"

// pollEvery is how often the log is read while a write waits.
const pollEvery = 4 * time.Millisecond

// ledgerRow is one turn or one program's result.
type ledgerRow struct {
	Program    string  `json:"program"`
	Protocol   string  `json:"protocol"`
	Mode       string  `json:"mode,omitempty"`   // pty or pipe
	Signal     string  `json:"signal,omitempty"` // input_signal of the waiting answer
	Kind       string  `json:"kind,omitempty"`
	AfterBytes float64 `json:"after_bytes_ms,omitempty"` // upper bound, see above
	AfterMin   float64 `json:"after_bytes_min_ms,omitempty"`
	RoundTrip  float64 `json:"round_trip_ms,omitempty"`
	Result     string  `json:"result,omitempty"` // pass, fail or skip: a program's row
}

// ledger collects one run's rows and writes them to the report file.
type ledger struct {
	mu   sync.Mutex
	rows []ledgerRow
	file *os.File
}

// newLedger makes the ledger of a test, which logs its summary when the
// test and all its parallel subtests are done.
func newLedger(t *testing.T) *ledger {
	l := &ledger{}
	if path := os.Getenv(reportEnv); path != "" {
		f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		l.file = f
	}
	t.Cleanup(func() {
		for _, line := range summarise(l.rows) {
			t.Log(line)
		}
		if l.file != nil {
			_ = l.file.Close()
		}
	})
	return l
}

func (l *ledger) add(r ledgerRow) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.rows = append(l.rows, r)
	if l.file != nil {
		b, _ := json.Marshal(r)
		_, _ = l.file.Write(append(b, '\n'))
	}
}

// result records how a program's subtest at one protocol ended.
func (l *ledger) result(t *testing.T, program string) {
	proto := protoOf(t)
	t.Cleanup(func() {
		res := "pass"
		switch {
		case t.Skipped():
			res = "skip"
		case t.Failed():
			res = "fail"
		}
		l.add(ledgerRow{Program: program, Protocol: proto, Result: res})
	})
}

// timedWrite is s.call("write", args) while the log of id is read from
// seq on, and the time from the prompt's bytes to the answer.
func (s *server) timedWrite(id string, seq int64, args map[string]any) (a result, lat latency) {
	s.t.Helper()
	type sample struct {
		start, end time.Time
		seq        int64
	}
	var samples []sample
	done := make(chan struct{})
	polled := make(chan struct{})
	go func() {
		defer close(polled)
		tick := time.NewTicker(pollEvery)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
			}
			at := time.Now()
			res, err := s.cs.CallTool(s.t.Context(), readParams(id, seq))
			if err != nil {
				continue
			}
			var r struct {
				NextSeq int64 `json:"next_seq"`
			}
			if b, err := json.Marshal(res.StructuredContent); err == nil && json.Unmarshal(b, &r) == nil && r.NextSeq > seq {
				seq = r.NextSeq
			}
			samples = append(samples, sample{at, time.Now(), seq})
		}
	}()
	start := time.Now()
	a = s.call("write", args)
	end := time.Now()
	close(done)
	<-polled
	last := int64(a.num("next_seq"))
	lat = latency{roundTrip: end.Sub(start), upper: end.Sub(start)}
	for _, sm := range samples {
		if sm.seq < last {
			// No read had seen the reply's end when this one started.
			lat.upper = end.Sub(sm.start)
		} else if lat.lower == 0 && !sm.end.After(end) {
			lat.lower = end.Sub(sm.end) // the first read that had seen it
		}
	}
	return a, lat
}

// latency is what timedWrite measured: the prompt's bytes came between
// lower and upper before the answer, roundTrip after the write was sent.
type latency struct{ lower, upper, roundTrip time.Duration }

// summarise gives each program's results and answer latencies, then the
// latencies by evidence (input_signal) over all programs.
func summarise(rows []ledgerRow) []string {
	type tally struct {
		results map[string]int
		signals map[string][]ledgerRow
	}
	programs := map[string]*tally{}
	all := map[string][]ledgerRow{}
	for _, r := range rows {
		k := r.Program + " " + r.Protocol
		if programs[k] == nil {
			programs[k] = &tally{results: map[string]int{}, signals: map[string][]ledgerRow{}}
		}
		if r.Result != "" {
			programs[k].results[r.Result]++
			continue
		}
		programs[k].signals[r.Signal] = append(programs[k].signals[r.Signal], r)
		all[r.Signal] = append(all[r.Signal], r)
	}
	var out []string
	for _, k := range slices.Sorted(maps.Keys(programs)) {
		p := programs[k]
		line := fmt.Sprintf("program %-34s pass %2d fail %2d skip %2d", k, p.results["pass"], p.results["fail"], p.results["skip"])
		for _, sig := range slices.Sorted(maps.Keys(p.signals)) {
			line += fmt.Sprintf("  %s: %d turns, median %.1f ms", sig, len(p.signals[sig]), quantile(field(p.signals[sig], upper), .5))
		}
		out = append(out, line)
	}
	for _, sig := range slices.Sorted(maps.Keys(all)) {
		rs := all[sig]
		up, lo, rt := field(rs, upper), field(rs, lower), field(rs, trip)
		out = append(out, fmt.Sprintf("signal %-13s turns %4d  after bytes ms (upper bound): median %6.1f p90 %6.1f max %6.1f"+
			"  (lower bound: median %6.1f p90 %6.1f)  round trip ms: median %6.1f p90 %6.1f",
			sig, len(rs), quantile(up, .5), quantile(up, .9), quantile(up, 1), quantile(lo, .5), quantile(lo, .9),
			quantile(rt, .5), quantile(rt, .9)))
	}
	return out
}

func upper(r ledgerRow) float64 { return r.AfterBytes }
func lower(r ledgerRow) float64 { return r.AfterMin }
func trip(r ledgerRow) float64  { return r.RoundTrip }

func field(rs []ledgerRow, f func(ledgerRow) float64) []float64 {
	xs := make([]float64, len(rs))
	for i, r := range rs {
		xs[i] = f(r)
	}
	return xs
}

// quantile is the q-quantile of xs (nearest rank).
func quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	i := int(q*float64(len(s))+0.999999) - 1
	return s[max(0, min(i, len(s)-1))]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// readParams reads the log of id from seq on.
func readParams(id string, seq int64) *mcp.CallToolParams {
	return &mcp.CallToolParams{Name: "read", Arguments: map[string]any{"process_id": id, "since_seq": seq}}
}

// protoOf names the protocol of a subtest of forEachProtocol.
func protoOf(t *testing.T) string {
	return t.Name()[strings.LastIndex(t.Name(), "/")+1:]
}
