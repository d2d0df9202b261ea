package human

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// SecretSink receives the secret a person submitted on a secret page.
type SecretSink interface {
	// Submit types secret (without a line ending) into the program's
	// terminal if, and only if, the program still waits for a password, and
	// returns an error saying why not otherwise. It must not keep secret:
	// the buffer is zeroed when Submit returns. Its error is shown to the
	// person and must not contain the secret.
	Submit(ctx context.Context, secret []byte) error
}

// Terminal is the program's terminal as a handover page sees it.
type Terminal interface {
	// Screen returns the rendered screen text and a channel that is closed
	// at its next change.
	Screen() (text string, changed <-chan struct{})
	// ANSI returns the screen as a terminal redraws it (colours, cursor),
	// the terminal's size (0, 0 when it has none, as in pipe mode), and a
	// channel that is closed at its next change.
	ANSI() (ansi string, cols, rows int, changed <-chan struct{})
	// Keys sends keystrokes, as bytes, to the program's input.
	Keys(ctx context.Context, keys []byte) error
	// Resize sets the terminal's size to the person's window.
	Resize(cols, rows int) error
}

// Program describes who asks, for the person reading the page.
type Program struct {
	Command string // the command line as started
	PID     int
	Name    string // the process's name or label
	// Reader, on a secret page, is the process that reads the terminal:
	// the one that gets what the person types, which may not be Command
	// (a shell's function or child). Warning says why to doubt it.
	Reader Reader
}

// Reader is the process reading the terminal, as the kernel shows it.
type Reader struct {
	PID     int    // 0: not identified
	Command string // its command line
	Warning string // why the person should doubt it; "" when none
}

// Request describes a page. Exactly one of Secret and Terminal is set: it
// makes a secret page or a handover page.
type Request struct {
	Program Program
	Message string // what the agent tells the person
	Prompt  string // the program's prompt line, as on the screen
	// Timeout is how long the page lives; 0 means DefaultTimeout.
	Timeout time.Duration

	Secret   SecretSink
	Terminal Terminal
}

// Outcome is how a page ended.
type Outcome string

const (
	Submitted Outcome = "submitted" // a secret page's secret was taken by Submit
	Done      Outcome = "done"      // the person pressed Done on a handover page
	Declined  Outcome = "declined"  // the person pressed Decline
	Left      Outcome = "left"      // the page expired, or a handover page was closed
	Withdrawn Outcome = "withdrawn" // the creator withdrew it, or Pages closed
)

// Defaults and bounds.
const (
	DefaultTimeout = 10 * time.Minute
	MaxTimeout     = 24 * time.Hour
	// DefaultLeaveGrace is how long a handover page may have no live view
	// (closed, reloading, a phone's browser in the background) before the
	// person counts as having left.
	DefaultLeaveGrace = 30 * time.Second

	maxOpenPages = 32
	maxText      = 4096 // bytes of Message and of Prompt shown
	keepEnded    = 10 * time.Minute
)

// Config configures Pages.
type Config struct {
	// BaseURL is where the caller serves [Pages.Handler], e.g.
	// "http://127.0.0.1:8080/human/"; pages are BaseURL + token. Its host
	// is the only Host header accepted. Empty: Pages serves itself on a
	// listener on 127.0.0.1:0 opened by the first Open.
	BaseURL string
	// Logger gets one line per page opened, refused request and outcome,
	// never a secret or a token. Nil: no logging.
	Logger *slog.Logger
	// LeaveGrace overrides DefaultLeaveGrace.
	LeaveGrace time.Duration
}

// Pages makes and serves one-time pages. Create it with New; Close it.
type Pages struct {
	log        *slog.Logger
	leaveGrace time.Duration
	ctx        context.Context // canceled by Close: handlers and callbacks end
	cancel     context.CancelFunc
	wake       chan struct{} // tells the reaper the next deadline changed
	reaperDone chan struct{}
	handlers   sync.WaitGroup         // handler calls in flight
	assets     func() *handoverAssets // made by the first handover page

	mu     sync.Mutex
	closed bool
	self   bool // serves itself; srv and base are set by the first Open
	// base, prefix and origin are set once, by New or by the first Open,
	// before any page exists, and never change.
	base   *url.URL
	prefix string // base's path, ending in "/"
	origin string // scheme://host of base
	srv    *http.Server
	served chan struct{} // closed when srv.Serve returned
	pages  map[[32]byte]*Page
	nextID int
}

// New returns Pages configured by cfg and starts its reaper.
func New(cfg Config) (*Pages, error) {
	p := &Pages{
		log:        cfg.Logger,
		leaveGrace: cfg.LeaveGrace,
		wake:       make(chan struct{}, 1),
		reaperDone: make(chan struct{}),
		pages:      make(map[[32]byte]*Page),
		assets:     sync.OnceValue(newHandoverAssets),
	}
	if p.log == nil {
		p.log = slog.New(slog.DiscardHandler)
	}
	if p.leaveGrace <= 0 {
		p.leaveGrace = DefaultLeaveGrace
	}
	if cfg.BaseURL == "" {
		p.self = true
	} else if err := p.setBase(cfg.BaseURL); err != nil {
		return nil, err
	}
	p.ctx, p.cancel = context.WithCancel(context.Background())
	go p.reap()
	return p, nil
}

// setBase checks and records the URL pages live under.
func (p *Pages) setBase(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("human pages base URL: %w", err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("human pages base URL %q: want http(s)://host[:port]/path/", raw)
	}
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
	}
	u.RawPath = ""
	p.base, p.prefix = u, u.Path
	p.origin = u.Scheme + "://" + strings.ToLower(u.Host)
	return nil
}

// Handler serves the pages under BaseURL's path. Mount it there, outside
// any bearer-token check; in self-serving mode Pages serves it itself.
func (p *Pages) Handler() http.Handler { return http.HandlerFunc(p.serveHTTP) }

// ErrClosed is returned by Open after Close.
var ErrClosed = errors.New("human pages are closed")

// Open makes a page for req and returns it; its URL is for the person
// only (give it to the agent's client to show, never log it). In
// self-serving mode the first Open starts the loopback listener.
func (p *Pages) Open(ctx context.Context, req Request) (*Page, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("opening a human page: %w", err)
	}
	if (req.Secret == nil) == (req.Terminal == nil) {
		return nil, errors.New("opening a human page: set exactly one of Secret and Terminal")
	}
	switch {
	case req.Timeout == 0:
		req.Timeout = DefaultTimeout
	case req.Timeout < 0 || req.Timeout > MaxTimeout:
		return nil, fmt.Errorf("opening a human page: timeout %v outside (0, %v]", req.Timeout, MaxTimeout)
	}
	req.Message, req.Prompt = clip(req.Message), clip(req.Prompt)
	tok, err := newToken()
	if err != nil {
		return nil, fmt.Errorf("opening a human page: %w", err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, ErrClosed
	}
	if p.countOpen() >= maxOpenPages {
		return nil, fmt.Errorf("opening a human page: %d pages are open already", maxOpenPages)
	}
	if p.self && p.srv == nil {
		if err := p.listen(); err != nil {
			return nil, err
		}
	}
	p.nextID++
	pg := &Page{
		p: p, id: p.nextID, token: tok, key: tokenKey(tok), req: req,
		url:      p.base.String() + tok,
		deadline: time.Now().Add(req.Timeout),
		opened:   make(chan struct{}),
		done:     make(chan struct{}),
	}
	p.pages[pg.key] = pg
	p.log.Info("human page opened", "page", pg.id, "kind", pg.kind(), "pid", req.Program.PID, "timeout", req.Timeout)
	p.kick()
	return pg, nil
}

// listen starts the loopback listener and its server; p.mu is held.
func (p *Pages) listen() error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("listening for human pages: %w", err)
	}
	if err := p.setBase("http://" + ln.Addr().String() + "/"); err != nil {
		_ = ln.Close()
		return err
	}
	p.srv = &http.Server{
		Handler:           p.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       60 * time.Second,
		ErrorLog:          slog.NewLogLogger(p.log.Handler(), slog.LevelDebug),
	}
	p.served = make(chan struct{})
	srv, served := p.srv, p.served
	go func() {
		defer close(served)
		_ = srv.Serve(ln) // ends with ErrServerClosed at Close
	}()
	p.log.Info("human pages listening", "addr", ln.Addr().String())
	return nil
}

// Close withdraws every open page, stops the listener if Pages opened one,
// and waits, within ctx, for every handler call and goroutine of Pages to
// end. Handlers waiting on a page return at once; a Submit or Keys
// callback in flight sees its context canceled.
func (p *Pages) Close(ctx context.Context) error {
	p.mu.Lock()
	already := p.closed
	p.closed = true
	if !already {
		for _, pg := range p.pages {
			pg.endLocked(Withdrawn)
		}
	}
	srv, served := p.srv, p.served
	p.mu.Unlock()
	p.cancel()
	var errs []error
	if srv != nil && !already {
		if err := srv.Shutdown(ctx); err != nil {
			_ = srv.Close()
			errs = append(errs, fmt.Errorf("closing human pages: %w", err))
		}
	}
	handlers := make(chan struct{})
	go func() { p.handlers.Wait(); close(handlers) }()
	for _, ch := range []chan struct{}{served, p.reaperDone, handlers} {
		if ch == nil {
			continue
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return errors.Join(append(errs, fmt.Errorf("closing human pages: %w", ctx.Err()))...)
		}
	}
	return errors.Join(errs...)
}

// countOpen counts pages not ended; p.mu is held.
func (p *Pages) countOpen() int {
	n := 0
	for _, pg := range p.pages {
		if pg.st != ended {
			n++
		}
	}
	return n
}

// kick wakes the reaper to recompute its next deadline.
func (p *Pages) kick() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// reap ends pages whose deadline passed, handover pages left without a
// live view for the grace, and forgets ended pages after keepEnded.
func (p *Pages) reap() {
	defer close(p.reaperDone)
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		next := p.reapDue(time.Now())
		if next.IsZero() {
			next = time.Now().Add(time.Hour)
		}
		timer.Reset(time.Until(next))
		select {
		case <-p.ctx.Done():
			return
		case <-p.wake:
		case <-timer.C:
		}
	}
}

// reapDue acts on every page due at now and returns the earliest time
// something is due next (zero: nothing).
func (p *Pages) reapDue(now time.Time) time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	var next time.Time
	due := func(t time.Time) {
		if !t.IsZero() && (next.IsZero() || t.Before(next)) {
			next = t
		}
	}
	for key, pg := range p.pages {
		switch pg.st {
		case ended:
			if forget := pg.endedAt.Add(keepEnded); !now.Before(forget) {
				delete(p.pages, key)
			} else {
				due(forget)
			}
			continue
		case busy: // a Submit is running: its end decides
			continue
		}
		switch {
		case !now.Before(pg.deadline):
			pg.endLocked(Left)
			due(pg.endedAt.Add(keepEnded))
		case !pg.leaveAt.IsZero() && !now.Before(pg.leaveAt):
			pg.endLocked(Left)
			due(pg.endedAt.Add(keepEnded))
		default:
			due(pg.deadline)
			due(pg.leaveAt)
		}
	}
	return next
}

// clip shortens s to maxText bytes, dropping a rune cut in two.
func clip(s string) string {
	if len(s) <= maxText {
		return s
	}
	return strings.ToValidUTF8(s[:maxText], "") + "…"
}

// Mount makes a Pages created without a BaseURL one that the caller
// serves: [Pages.Handler] mounted under baseURL (e.g. once an HTTP
// listener's address is known). It must come before the first Open.
func (p *Pages) Mount(baseURL string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.self || p.srv != nil || p.nextID > 0 || p.closed {
		return errors.New("human pages: Mount must come first, on Pages made without a BaseURL")
	}
	if err := p.setBase(baseURL); err != nil {
		return err
	}
	p.self = false
	return nil
}
