package netproxy

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	xproxy "golang.org/x/net/proxy"
)

// fakeResolver maps test names to addresses and remembers what it was
// asked.
type fakeResolver struct {
	mu    sync.Mutex
	names map[string][]netip.Addr
	asked []string
}

func (r *fakeResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.asked = append(r.asked, host)
	if a, ok := r.names[host]; ok {
		return a, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

// upstream is an HTTP server on 127.0.0.2 that answers with what it saw.
type upstream struct {
	port    int
	mu      sync.Mutex
	headers []http.Header
}

func startUpstream(t testing.TB) *upstream {
	ln, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Skipf("no 127.0.0.2 on this machine: %v", err)
	}
	u := &upstream{port: ln.Addr().(*net.TCPAddr).Port}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u.mu.Lock()
		u.headers = append(u.headers, r.Header.Clone())
		u.mu.Unlock()
		fmt.Fprintf(w, "hello %s %s", r.Host, r.URL.Path)
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return u
}

// testList lists the upstream's names and its address (loopback is
// refused unless an address rule names it).
const testList = "listed.test, *.wild.test, rebind.test, meta.test, 127.0.0.2"

func testResolver() *fakeResolver {
	two := []netip.Addr{netip.MustParseAddr("127.0.0.2")}
	return &fakeResolver{names: map[string][]netip.Addr{
		"listed.test": two, "a.wild.test": two, "wild.test": two, "unlisted.test": two,
		"rebind.test": {netip.MustParseAddr("127.0.0.1")},
		"meta.test":   {netip.MustParseAddr("169.254.169.254")},
	}}
}

// startProxy serves a Proxy on a loopback listener until the test ends.
func startProxy(t testing.TB, cfg Config) (*Proxy, string) {
	t.Helper()
	if cfg.Hosts.rules == nil {
		l, err := Parse(testList)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Hosts = l
	}
	if cfg.Resolver == nil {
		cfg.Resolver = testResolver()
	}
	p := New(cfg)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return p, ln.Addr().String()
}

// get fetches http://host:port/path through the proxy by protocol
// ("http" forwards, "connect" tunnels, "socks5" tunnels by name).
func get(t testing.TB, proto, proxyAddr, hostport string) (string, error) {
	t.Helper()
	tr := &http.Transport{DisableKeepAlives: true}
	switch proto {
	case "http":
		tr.Proxy = http.ProxyURL(&url.URL{Scheme: "http", Host: proxyAddr})
	case "connect":
		tr.DialContext = func(ctx context.Context, _, addr string) (net.Conn, error) { return dialConnect(proxyAddr, addr) }
	case "socks5":
		d, err := xproxy.SOCKS5("tcp", proxyAddr, nil, xproxy.Direct)
		if err != nil {
			t.Fatal(err)
		}
		tr.DialContext = d.(xproxy.ContextDialer).DialContext
	}
	c := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	resp, err := c.Get("http://" + hostport + "/path")
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return string(b), fmt.Errorf("status %d: %s", resp.StatusCode, b)
	}
	return string(b), err
}

// dialConnect opens a CONNECT tunnel to addr through the proxy.
func dialConnect(proxyAddr, addr string) (net.Conn, error) {
	c, err := net.Dial("tcp", proxyAddr)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", addr, addr)
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, &http.Request{Method: http.MethodConnect})
	if err != nil {
		c.Close()
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		c.Close()
		return nil, fmt.Errorf("status %d: %s", resp.StatusCode, b)
	}
	return c, nil
}

var protocols = []string{"http", "connect", "socks5"}

func TestProxyAdmitsListed(t *testing.T) {
	u := startUpstream(t)
	_, addr := startProxy(t, Config{})
	for _, proto := range protocols {
		for _, host := range []string{"listed.test", "LISTED.test.", "a.wild.test", "127.0.0.2", "[::ffff:127.0.0.2]"} {
			hp := fmt.Sprintf("%s:%d", host, u.port)
			if proto == "socks5" && strings.HasSuffix(host, ".") {
				continue // the SOCKS client refuses a trailing dot itself
			}
			body, err := get(t, proto, addr, hp)
			if err != nil || !strings.HasPrefix(body, "hello ") {
				t.Errorf("%s %s: %q, %v", proto, hp, body, err)
			}
		}
	}
}

func TestProxyRefusesAndNames(t *testing.T) {
	u := startUpstream(t)
	res := testResolver()
	p, addr := startProxy(t, Config{Resolver: res})
	port := u.port
	cases := []struct{ host, denied, reason string }{
		{"unlisted.test", "unlisted.test", "not listed"},
		{"wild.test", "wild.test", "not listed"}, // a wildcard does not admit its apex
		{"rebind.test", "rebind.test", "resolves to 127.0.0.1"},
		{"meta.test", "meta.test", "resolves to 169.254.169.254"},
		{"127.0.0.1", "127.0.0.1", "not listed"},
		{"[::1]", "::1", "not listed"},
		{"169.254.169.254", "169.254.169.254", "not listed"},
	}
	for _, proto := range protocols {
		for _, c := range cases {
			hp := fmt.Sprintf("%s:%d", c.host, port)
			body, err := get(t, proto, addr, hp)
			if err == nil {
				t.Errorf("%s %s: admitted (%q)", proto, hp, body)
			}
			if proto != "socks5" && (!strings.Contains(err.Error(), "status 403") || !strings.Contains(err.Error(), "refused by the sandbox")) {
				t.Errorf("%s %s: %v, want a 403 that says the sandbox refused it", proto, hp, err)
			}
		}
	}
	denials, dropped := p.TakeDenials()
	if len(denials) != len(cases) || dropped != 0 {
		t.Fatalf("denials = %+v (%d dropped), want one per case", denials, dropped)
	}
	for i, c := range cases {
		d := denials[i]
		if d.Op != "connect" || d.Host != c.denied || d.Port != port || d.Count != len(protocols) || !strings.Contains(d.Reason, c.reason) {
			t.Errorf("denial %d = %+v, want connect %s:%d ×%d (%s)", i, d, c.denied, port, len(protocols), c.reason)
		}
	}
	if d, _ := p.TakeDenials(); d != nil {
		t.Errorf("TakeDenials did not empty the record: %+v", d)
	}
	res.mu.Lock()
	defer res.mu.Unlock()
	for _, name := range res.asked {
		if name == "unlisted.test" || name == "wild.test" {
			t.Errorf("the proxy resolved %s, which is not listed (a lookup leaks the name)", name)
		}
	}
}

func TestProxyDenialsBounded(t *testing.T) {
	p, addr := startProxy(t, Config{MaxDenials: 2})
	for i := range 4 {
		get(t, "connect", addr, fmt.Sprintf("h%d.unlisted.test:80", i))
	}
	d, dropped := p.TakeDenials()
	if len(d) != 2 || dropped != 2 || d[0].Host != "h0.unlisted.test" {
		t.Errorf("denials = %+v, dropped %d; want the first 2 and 2 dropped", d, dropped)
	}
}

// socksRaw sends a raw SOCKS5 greeting and request and returns the reply
// code.
func socksRaw(t *testing.T, addr string, req []byte) byte {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	c.Write([]byte{5, 1, 0})
	var greet [2]byte
	if _, err := io.ReadFull(c, greet[:]); err != nil || greet != [2]byte{5, 0} {
		t.Fatalf("greeting: %v %v", greet, err)
	}
	c.Write(req)
	var reply [10]byte
	if _, err := io.ReadFull(c, reply[:]); err != nil {
		t.Fatalf("reply: %v", err)
	}
	return reply[1]
}

func TestSOCKSRefusesBindUDPAndOddAddresses(t *testing.T) {
	_, addr := startProxy(t, Config{})
	cases := []struct {
		name string
		req  []byte
		want byte
	}{
		{"bind", []byte{5, 2, 0, 1, 127, 0, 0, 2, 0, 80}, socksCmdUnsupported},
		{"udp associate", []byte{5, 3, 0, 1, 0, 0, 0, 0, 0, 0}, socksCmdUnsupported},
		{"unknown address type", []byte{5, 1, 0, 9, 0, 0}, socksAtypUnsupport},
		{"empty name", []byte{5, 1, 0, 3, 0, 0, 80}, socksAtypUnsupport},
		{"ipv6 loopback", append(append([]byte{5, 1, 0, 4}, netip.IPv6Loopback().AsSlice()...), 0, 80), socksNotAllowed},
		{"unlisted name", append(append([]byte{5, 1, 0, 3, 8}, "evil.com"...), 1, 187), socksNotAllowed},
	}
	for _, c := range cases {
		if got := socksRaw(t, addr, c.req); got != c.want {
			t.Errorf("%s: reply %#x, want %#x", c.name, got, c.want)
		}
	}
}

func TestSOCKSWithoutNoAuthIsRefused(t *testing.T) {
	_, addr := startProxy(t, Config{})
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	c.Write([]byte{5, 1, 2}) // user/password only
	b, _ := io.ReadAll(c)
	if string(b) != "\x05\xff" {
		t.Errorf("reply %q, want no acceptable method and a close", b)
	}
}

func TestDenialJSON(t *testing.T) {
	b, err := json.Marshal(Denial{Op: "connect", Host: "evil.example", Port: 443, Count: 2, Reason: "not listed"})
	if want := `{"op":"connect","host":"evil.example","port":443,"count":2,"reason":"not listed"}`; err != nil || string(b) != want {
		t.Errorf("%s, %v; want %s", b, err, want)
	}
}

func TestEnv(t *testing.T) {
	got := strings.Join(Env("127.0.0.1:3128"), " ")
	for _, want := range []string{"HTTP_PROXY=http://127.0.0.1:3128", "https_proxy=http://127.0.0.1:3128",
		"ALL_PROXY=socks5h://127.0.0.1:3128", "all_proxy=socks5h://127.0.0.1:3128", "NO_PROXY=localhost,127.0.0.1,::1"} {
		if !strings.Contains(got, want) {
			t.Errorf("Env lacks %s: %s", want, got)
		}
	}
}

// Issue 40 item 4's seam: a destination that is not listed is put to
// Config.Approve before it is refused, and the client's request waits
// for the answer. Yes lets the connection through, unrecorded; no
// refuses and records it, as without Approve; a listed destination is
// never asked about.
func TestProxyApproveHoldsTheConnect(t *testing.T) {
	u := startUpstream(t)
	type question struct {
		host   string
		port   uint16
		answer chan bool
	}
	asked := make(chan question)
	approve := func(ctx context.Context, host string, port uint16) bool {
		q := question{host, port, make(chan bool)}
		select {
		case asked <- q:
		case <-ctx.Done():
			return false
		}
		return <-q.answer
	}
	p, addr := startProxy(t, Config{Approve: approve, HandshakeTimeout: 200 * time.Millisecond})
	for _, proto := range protocols {
		for _, yes := range []bool{true, false} {
			hp := fmt.Sprintf("unlisted.test:%d", u.port)
			done := make(chan error, 1)
			go func() {
				_, err := get(t, proto, addr, hp)
				done <- err
			}()
			q := <-asked
			if q.host != "unlisted.test" || int(q.port) != u.port {
				t.Errorf("%s: asked about %s:%d, want %s", proto, q.host, q.port, hp)
			}
			// Held past the handshake timeout: the question has no deadline
			// of the proxy's.
			time.Sleep(300 * time.Millisecond)
			select {
			case err := <-done:
				t.Fatalf("%s: the request ended (%v) before Approve returned", proto, err)
			default:
			}
			q.answer <- yes
			err := <-done
			if yes != (err == nil) {
				t.Errorf("%s, approve %v: %v", proto, yes, err)
			}
		}
	}
	denials, _ := p.TakeDenials()
	if len(denials) != 1 || denials[0].Host != "unlisted.test" || denials[0].Count != len(protocols) {
		t.Errorf("denials = %+v, want unlisted.test once per refusal", denials)
	}
	if body, err := get(t, "connect", addr, fmt.Sprintf("listed.test:%d", u.port)); err != nil {
		t.Errorf("listed.test: %q %v (Approve must not be asked: nobody answers here)", body, err)
	}
}
