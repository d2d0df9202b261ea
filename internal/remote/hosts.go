package remote

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"

	"github.com/yieldshell/yieldshell/internal/session"
)

// Config is how a server reaches other hosts.
type Config struct {
	// Allowed lists the hosts commands may run on (YIELDSHELL_HOSTS);
	// empty allows any.
	Allowed []string
	// SSH is the ssh command and its options (YIELDSHELL_SSH; "ssh").
	SSH []string
	// Self is the executable copied to a host that lacks it: this one.
	Self   string
	Timing Timing
	Log    *slog.Logger
	// Dialer, when set, replaces ssh (tests).
	Dialer func(host string, m *session.Manager) Dialer
}

// Hosts keeps one Client per host, reused by every command there: the
// Manager's [session.Hosts].
type Hosts struct {
	cfg     Config
	mu      sync.Mutex
	clients map[string]*Client
	closed  bool
}

var _ session.Hosts = (*Hosts)(nil)

// NewHosts returns Hosts that connect as cfg says.
func NewHosts(cfg Config) *Hosts {
	if len(cfg.SSH) == 0 {
		cfg.SSH = []string{"ssh"}
	}
	if cfg.Timing == (Timing{}) {
		cfg.Timing = DefaultTiming
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	return &Hosts{cfg: cfg, clients: map[string]*Client{}}
}

// Host connects to host, or reuses its connection.
func (h *Hosts) Host(ctx context.Context, host string, m *session.Manager) (session.Engine, session.Prober, error) {
	if err := session.CheckHost(host); err != nil {
		return nil, nil, err
	}
	if len(h.cfg.Allowed) > 0 && !slices.Contains(h.cfg.Allowed, host) {
		return nil, nil, fmt.Errorf("host %q is not in YIELDSHELL_HOSTS (%s)", host, strings.Join(h.cfg.Allowed, ", "))
	}
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil, nil, session.ErrShuttingDown
	}
	c := h.clients[host]
	if c == nil {
		var d Dialer
		if h.cfg.Dialer != nil {
			d = h.cfg.Dialer(host, m)
		} else {
			d = &sshDialer{host: host, cfg: &h.cfg, m: m}
		}
		c = NewClient(host, d, h.cfg.Timing, h.cfg.Log)
		h.clients[host] = c
	}
	h.mu.Unlock()
	if err := c.connect(ctx); err != nil {
		return nil, nil, err
	}
	return c.Engine(), c.Prober(), nil
}

// Close closes every connection.
func (h *Hosts) Close() error {
	h.mu.Lock()
	h.closed = true
	clients := h.clients
	h.clients = map[string]*Client{}
	h.mu.Unlock()
	for _, c := range clients {
		_ = c.Close()
	}
	return nil
}
