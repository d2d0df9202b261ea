package netproxy

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// Resolver looks host names up; *net.Resolver is one.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// Config is what a Proxy admits and how it reaches the outside.
type Config struct {
	Hosts List
	// Resolver looks listed names up; nil is net.DefaultResolver. The
	// proxy dials the addresses it checked, never the name again.
	Resolver Resolver
	// MaxConns bounds the connections served at once (default 64); one
	// more is closed as soon as it is accepted.
	MaxConns int
	// HandshakeTimeout bounds reading a request and connecting to its
	// destination (default 10 s).
	HandshakeTimeout time.Duration
	// MaxDenials bounds the distinct destinations recorded between two
	// TakeDenials (default 32); later ones are only counted.
	MaxDenials int
	// Approve, when set, is asked about a destination that is not listed
	// before it is refused (a held connect: the client's request waits
	// until it returns). True lets this one connection proceed as if the
	// host were listed, and records no denial; false, or ctx ending,
	// refuses it as without Approve. Nil refuses at once.
	Approve func(ctx context.Context, host string, port uint16) bool
}

// A Denial is a destination the proxy refused, as an answer names it.
type Denial struct {
	Op     string `json:"op"` // "connect"
	Host   string `json:"host"`
	Port   int    `json:"port"`
	Count  int    `json:"count"`
	Reason string `json:"reason,omitempty"`
}

// A Proxy serves one sandboxed process: its denials are that process's.
type Proxy struct {
	cfg Config

	mu      sync.Mutex
	denials []Denial
	dropped int
}

// New returns a Proxy for cfg, with its defaults filled in.
func New(cfg Config) *Proxy {
	if cfg.Resolver == nil {
		cfg.Resolver = net.DefaultResolver
	}
	if cfg.MaxConns <= 0 {
		cfg.MaxConns = 64
	}
	if cfg.HandshakeTimeout <= 0 {
		cfg.HandshakeTimeout = 10 * time.Second
	}
	if cfg.MaxDenials <= 0 {
		cfg.MaxDenials = 32
	}
	return &Proxy{cfg: cfg}
}

// TakeDenials returns the destinations refused since the last call, in
// the order first refused, each with its count, and how many more distinct
// destinations were refused beyond MaxDenials; it empties the record.
func (p *Proxy) TakeDenials() ([]Denial, int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	d, n := p.denials, p.dropped
	p.denials, p.dropped = nil, 0
	return d, n
}

func (p *Proxy) deny(host string, port uint16, reason string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i := range p.denials {
		if d := &p.denials[i]; d.Host == host && d.Port == int(port) {
			d.Count++
			return
		}
	}
	if len(p.denials) >= p.cfg.MaxDenials {
		p.dropped++
		return
	}
	p.denials = append(p.denials, Denial{Op: "connect", Host: host, Port: int(port), Count: 1, Reason: reason})
}

// Serve accepts connections on ln and serves each until ctx is done or ln
// fails; then it closes ln and every connection and returns once all of
// its goroutines have ended. It returns nil when ctx ended it.
func (p *Proxy) Serve(ctx context.Context, ln net.Listener) error {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	wg.Go(func() {
		<-ctx.Done()
		ln.Close()
	})
	slots := make(chan struct{}, p.cfg.MaxConns)
	for {
		c, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			if errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE) || errors.Is(err, syscall.ECONNABORTED) {
				// Out of descriptors for now (server-wide): wait a little
				// rather than give this process's network up.
				select {
				case <-ctx.Done():
				case <-time.After(50 * time.Millisecond):
				}
				continue
			}
			return fmt.Errorf("proxy accept: %w", err)
		}
		select {
		case slots <- struct{}{}:
		default:
			c.Close() // over the limit: a flood cannot starve the server
			continue
		}
		wg.Go(func() {
			defer func() { <-slots }()
			p.serveConn(ctx, c)
		})
	}
}

// serveConn serves one client connection (SOCKS5 when its first byte
// says so, HTTP otherwise) and closes it; it returns when ctx is done or
// the exchange ends.
func (p *Proxy) serveConn(ctx context.Context, c net.Conn) {
	ctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(ctx, func() { c.Close() })
	defer func() {
		stop()
		cancel()
		c.Close()
	}()
	c.SetDeadline(time.Now().Add(p.cfg.HandshakeTimeout))
	lim := &limited{r: c, n: maxHandshake}
	br := bufio.NewReaderSize(lim, 4096)
	first, err := br.Peek(1)
	if err != nil {
		return
	}
	cc := &clientConn{Conn: c, br: br, lim: lim}
	switch first[0] {
	case socksVersion:
		p.serveSOCKS(ctx, cc)
	case 4: // SOCKS4: not spoken; nothing sensible to answer
	default:
		p.serveHTTP(ctx, cc)
	}
}

// maxHandshake bounds the bytes read before a destination is decided (a
// request line and headers, or a SOCKS request): a client cannot make the
// proxy buffer without bound.
const maxHandshake = 64 << 10

// limited reads at most n more bytes from r; n is raised once the
// handshake is over.
type limited struct {
	r io.Reader
	n int64
}

func (l *limited) Read(b []byte) (int, error) {
	if l.n <= 0 {
		return 0, errHandshakeTooLong
	}
	if int64(len(b)) > l.n {
		b = b[:l.n]
	}
	n, err := l.r.Read(b)
	l.n -= int64(n)
	return n, err
}

var errHandshakeTooLong = errors.New("handshake too long")

// clientConn is a client connection with what was read of it buffered.
type clientConn struct {
	net.Conn
	br  *bufio.Reader
	lim *limited
}

// established ends the handshake: no deadline and no byte limit from now.
func (c *clientConn) established() {
	c.SetDeadline(time.Time{})
	c.lim.n = 1 << 62
}

// errDenied is a destination the host list refuses; the denial is
// recorded.
var errDenied = errors.New("refused by the sandbox")

// connect checks host:port against the list, records a refusal, and
// dials an address it admitted.
func (p *Proxy) connect(ctx context.Context, c *clientConn, host string, port uint16) (net.Conn, error) {
	tctx, cancel := context.WithTimeout(ctx, p.cfg.HandshakeTimeout)
	defer cancel()
	addrs, reason, err := p.check(tctx, host, port, false)
	if reason == reasonNotListed && p.approve(ctx, c, host, port) {
		tctx, cancel = context.WithTimeout(ctx, p.cfg.HandshakeTimeout)
		defer cancel()
		addrs, reason, err = p.check(tctx, host, port, true)
	}
	if err != nil {
		return nil, err
	}
	hp := net.JoinHostPort(displayHost(host), strconv.Itoa(int(port)))
	if reason != "" {
		p.deny(displayHost(host), port, reason)
		return nil, fmt.Errorf("connect %s: %w: %s", hp, errDenied, reason)
	}
	var last error
	for _, a := range addrs {
		conn, err := (&net.Dialer{}).DialContext(tctx, "tcp", netip.AddrPortFrom(a, port).String())
		if err == nil {
			return conn, nil
		}
		last = err
	}
	return nil, fmt.Errorf("connect %s: %w", hp, unwrapOp(last))
}

// reasonNotListed is check's reason for a destination no rule admits: the
// one Approve is asked about.
const reasonNotListed = "not listed"

// approve asks Config.Approve about host:port, holding the client: its
// handshake deadline is lifted while the question is open, and starts
// again after.
func (p *Proxy) approve(ctx context.Context, c *clientConn, host string, port uint16) bool {
	if p.cfg.Approve == nil {
		return false
	}
	c.SetDeadline(time.Time{})
	ok := p.cfg.Approve(ctx, displayHost(host), port) && ctx.Err() == nil
	c.SetDeadline(time.Now().Add(p.cfg.HandshakeTimeout))
	return ok
}

// check decides host:port: the addresses to dial, or why not (reason). An
// address is admitted only by an address rule; a name by a name rule, and
// then only those of its addresses that are not local (unless an address
// rule lists them too). approved admits host as if a rule listed it (its
// local addresses are still refused).
func (p *Proxy) check(ctx context.Context, host string, port uint16, approved bool) ([]netip.Addr, string, error) {
	if port == 0 {
		return nil, "port 0", nil
	}
	if a, err := netip.ParseAddr(host); err == nil {
		if a.Zone() != "" || !approved && !p.cfg.Hosts.admitsAddr(a, port) {
			return nil, reasonNotListed, nil
		}
		return []netip.Addr{a.Unmap()}, "", nil
	}
	name, err := NormalizeName(host)
	if err != nil {
		return nil, "not a valid host name", nil
	}
	if !approved && !p.cfg.Hosts.admitsName(name, port) {
		return nil, reasonNotListed, nil
	}
	all, err := p.cfg.Resolver.LookupNetIP(ctx, "ip", name)
	if err != nil {
		return nil, "", fmt.Errorf("resolve %s: %w", name, unwrapOp(err))
	}
	if len(all) == 0 {
		return nil, "", fmt.Errorf("resolve %s: no address", name)
	}
	var ok []netip.Addr
	for _, a := range all {
		if a = a.Unmap(); !local(a) || p.cfg.Hosts.admitsAddr(a, port) {
			ok = append(ok, a)
		}
	}
	if len(ok) == 0 {
		return nil, fmt.Sprintf("resolves to %s, a local address not listed", all[0].Unmap()), nil
	}
	return ok, "", nil
}

// displayHost is host as a denial names it: a name normalised when it is
// one, an address as written otherwise.
func displayHost(host string) string {
	if a, err := netip.ParseAddr(host); err == nil {
		return a.Unmap().String()
	}
	if n, err := NormalizeName(host); err == nil {
		return n
	}
	return strconv.Quote(host)
}

// unwrapOp drops the *net.OpError and *net.DNSError layers (which name
// the proxy's own addresses) for the cause.
func unwrapOp(err error) error {
	var op *net.OpError
	if errors.As(err, &op) {
		return op.Err
	}
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return errors.New(dns.Err)
	}
	return err
}

// pipe copies both ways between the client and the destination until both
// directions end (each half-closed as its source ends) or ctx is done,
// then closes dst and returns.
func pipe(ctx context.Context, client *clientConn, dst net.Conn) {
	stop := context.AfterFunc(ctx, func() { dst.Close() })
	defer func() {
		stop()
		dst.Close()
	}()
	done := make(chan struct{})
	go func() {
		defer close(done)
		io.Copy(dst, client.br)
		closeWrite(dst)
	}()
	io.Copy(client.Conn, dst)
	closeWrite(client.Conn)
	<-done
}

func closeWrite(c net.Conn) {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		cw.CloseWrite()
		return
	}
	c.Close()
}
