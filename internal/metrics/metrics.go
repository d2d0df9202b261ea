// Package metrics exposes a server's operation to Prometheus: what its
// tools answered (counted by an MCP middleware as the answers pass) and
// what its processes are (read from the session Manager at each scrape).
package metrics

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/yieldshell/yieldshell/internal/mcptool"
	"github.com/yieldshell/yieldshell/internal/session"
)

// Metrics is one server's registry and the instruments fed by its answers.
type Metrics struct {
	reg        *prometheus.Registry
	answers    *prometheus.HistogramVec // by tool
	execs      *prometheus.CounterVec   // by status
	refusals   *prometheus.CounterVec   // by reason: the policy rule
	inputWaits *prometheus.CounterVec   // by signal
}

// New registers the metrics of mgr's server, with the Go runtime's and
// the process's own.
func New(mgr *session.Manager) *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		answers: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "yieldshell_tool_answer_seconds",
			Help: "Time from a tool call to its answer, by tool.",
			// From an instant ps to a wait that runs its full 55 s.
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60},
		}, []string{"tool"}),
		execs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "yieldshell_execs_total",
			Help: "exec calls by the status of their answer: completed, backgrounded, failed_to_start, ...",
		}, []string{"status"}),
		refusals: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "yieldshell_refusals_total",
			Help: "Calls the policy refused, by the rule that refused them.",
		}, []string{"reason"}),
		inputWaits: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "yieldshell_input_waits_total",
			Help: "Answers that reported a program waiting for input, by how it was seen: prompt_mark, tty_read, stdin_read or quiet_prompt.",
		}, []string{"signal"}),
	}
	m.reg.MustRegister(m.answers, m.execs, m.refusals, m.inputWaits, &processes{mgr: mgr},
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Handler serves the metrics in the Prometheus exposition format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

// Middleware times every tool call and counts what its answer says.
func (m *Metrics) Middleware() mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method != "tools/call" {
				return next(ctx, method, req)
			}
			start := time.Now()
			ctx, o := mcptool.WithOutcome(ctx)
			res, err := next(ctx, method, req)
			p, _ := req.GetParams().(*mcp.CallToolParamsRaw)
			r, _ := res.(*mcp.CallToolResult)
			// A protocol error (an unknown tool, say) is not counted: the
			// tool label stays within the tools that exist.
			if p == nil || r == nil || err != nil {
				return res, err
			}
			m.answers.WithLabelValues(p.Name).Observe(time.Since(start).Seconds())
			m.count(p.Name, *o)
			return res, err
		}
	}
}

// count counts what a tool's answer said (its typed outcome, filled in
// by the tool as it answered).
func (m *Metrics) count(tool string, a mcptool.Outcome) {
	if tool == "exec" && a.Status != "" {
		m.execs.WithLabelValues(a.Status).Inc()
	}
	if a.Rule != "" {
		m.refusals.WithLabelValues(a.Rule).Inc()
	}
	if a.WaitingForInput && a.InputSignal != "" {
		m.inputWaits.WithLabelValues(a.InputSignal).Inc()
	}
}

// processes reads the Manager's processes at each scrape. The byte
// counters add what each process logged or lost since the previous scrape,
// so they go on counting after processes are forgotten (what a process logs
// between the last scrape and its purge, an hour after it ended by default,
// is missed).
type processes struct {
	mgr *session.Manager

	mu              sync.Mutex
	seen            map[*session.Process]tally // at the previous scrape
	logged, evicted int64
}

type tally struct{ logged, evicted int64 }

var (
	byStatus = prometheus.NewDesc("yieldshell_processes",
		"Processes the server holds, by status (finished ones until cleanup or purge forgets them).", []string{"status"}, nil)
	logged = prometheus.NewDesc("yieldshell_output_bytes_total",
		"Bytes of output logged by the server's processes (clean text).", nil, nil)
	evicted = prometheus.NewDesc("yieldshell_output_evicted_bytes_total",
		"Bytes of output evicted from the processes' logs to stay within YIELDSHELL_MAX_BUFFER_BYTES.", nil, nil)
	restarts = prometheus.NewDesc("yieldshell_restarts",
		"Restarts (by the restart tool or after a crash) of the named processes the server holds, since each name was last started fresh.", nil, nil)
)

func (*processes) Describe(ch chan<- *prometheus.Desc) {
	ch <- byStatus
	ch <- logged
	ch <- evicted
	ch <- restarts
}

func (c *processes) Collect(ch chan<- prometheus.Metric) {
	counts := map[session.Status]int{session.Running: 0, session.Completed: 0,
		session.Stopped: 0, session.TimedOut: 0, session.Failed: 0}
	names := map[string]int{}
	c.mu.Lock()
	seen := map[*session.Process]tally{}
	for _, p := range c.mgr.List() {
		in := p.Info()
		counts[in.Status]++
		if in.Name != "" {
			names[in.Name] = c.mgr.History(p).Restarts
		}
		now, before := tally{in.StdoutBytes + in.StderrBytes, p.EvictedBytes()}, c.seen[p]
		c.logged += now.logged - before.logged
		c.evicted += now.evicted - before.evicted
		seen[p] = now
	}
	c.seen = seen
	ch <- prometheus.MustNewConstMetric(logged, prometheus.CounterValue, float64(c.logged))
	ch <- prometheus.MustNewConstMetric(evicted, prometheus.CounterValue, float64(c.evicted))
	c.mu.Unlock()
	for s, n := range counts {
		ch <- prometheus.MustNewConstMetric(byStatus, prometheus.GaugeValue, float64(n), string(s))
	}
	n := 0
	for _, r := range names {
		n += r
	}
	ch <- prometheus.MustNewConstMetric(restarts, prometheus.GaugeValue, float64(n))
}

// Health answers GET /healthz with 200 "ok" while the server serves. It
// needs no token, so it says nothing more.
func Health() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		_, _ = w.Write([]byte("ok\n"))
	})
}
