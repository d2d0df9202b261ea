//go:build unix

// Package cdptest drives headless Chromium from tests: a minimal Chrome
// DevTools Protocol client over a minimal websocket client (RFC 6455,
// client side: text frames out, masked; any frames in), enough for a test
// to open a page, type, click and take a screenshot without a dependency.
// Tests that need it skip, saying so, where Debian's chromium is missing.
// It imports nothing of ours but the other test helpers.
package cdptest

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/yieldshell/yieldshell/internal/poll"
	"github.com/yieldshell/yieldshell/internal/testdir"
)

// wsConn is a client websocket connection.
type wsConn struct {
	c  net.Conn
	br *bufio.Reader
	wm sync.Mutex
}

// wsDial opens a websocket to a ws:// URL.
func wsDial(ctx context.Context, raw string) (*wsConn, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "ws" {
		return nil, fmt.Errorf("websocket URL %q: want ws://", raw)
	}
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", u.Host)
	if err != nil {
		return nil, err
	}
	key := make([]byte, 16)
	_, _ = rand.Read(key)
	req := "GET " + u.RequestURI() + " HTTP/1.1\r\nHost: " + u.Host +
		"\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: " +
		base64.StdEncoding.EncodeToString(key) + "\r\n\r\n"
	if _, err := io.WriteString(c, req); err != nil {
		c.Close()
		return nil, err
	}
	br := bufio.NewReaderSize(c, 1<<16)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		c.Close()
		return nil, err
	}
	if resp.StatusCode != http.StatusSwitchingProtocols {
		c.Close()
		return nil, fmt.Errorf("websocket handshake: %s", resp.Status)
	}
	return &wsConn{c: c, br: br}, nil
}

// write sends one frame with opcode op.
func (w *wsConn) write(op byte, payload []byte) error {
	w.wm.Lock()
	defer w.wm.Unlock()
	hdr := []byte{0x80 | op}
	switch n := len(payload); {
	case n < 126:
		hdr = append(hdr, 0x80|byte(n))
	case n < 1<<16:
		hdr = append(hdr, 0x80|126, byte(n>>8), byte(n))
	default:
		hdr = append(hdr, 0x80|127)
		hdr = binary.BigEndian.AppendUint64(hdr, uint64(n))
	}
	mask := make([]byte, 4)
	_, _ = rand.Read(mask)
	hdr = append(hdr, mask...)
	masked := make([]byte, len(payload))
	for i, b := range payload {
		masked[i] = b ^ mask[i%4]
	}
	_, err := w.c.Write(append(hdr, masked...))
	return err
}

// read returns the next text or binary message, answering pings.
func (w *wsConn) read() ([]byte, error) {
	var msg []byte
	for {
		var h [2]byte
		if _, err := io.ReadFull(w.br, h[:]); err != nil {
			return nil, err
		}
		fin, op := h[0]&0x80 != 0, h[0]&0x0f
		n := uint64(h[1] & 0x7f)
		switch n {
		case 126:
			var b [2]byte
			if _, err := io.ReadFull(w.br, b[:]); err != nil {
				return nil, err
			}
			n = uint64(binary.BigEndian.Uint16(b[:]))
		case 127:
			var b [8]byte
			if _, err := io.ReadFull(w.br, b[:]); err != nil {
				return nil, err
			}
			n = binary.BigEndian.Uint64(b[:])
		}
		var mask [4]byte
		if h[1]&0x80 != 0 {
			if _, err := io.ReadFull(w.br, mask[:]); err != nil {
				return nil, err
			}
		}
		if n > 64<<20 {
			return nil, errors.New("websocket frame too large")
		}
		p := make([]byte, n)
		if _, err := io.ReadFull(w.br, p); err != nil {
			return nil, err
		}
		if h[1]&0x80 != 0 {
			for i := range p {
				p[i] ^= mask[i%4]
			}
		}
		switch op {
		case 0x8:
			return nil, io.EOF
		case 0x9:
			if err := w.write(0xA, p); err != nil {
				return nil, err
			}
			continue
		case 0xA:
			continue
		}
		msg = append(msg, p...)
		if fin {
			return msg, nil
		}
	}
}

// Conn is a DevTools session on one page target.
type Conn struct {
	ws     *wsConn
	done   chan struct{} // closed when the reader has returned
	mu     sync.Mutex
	nextID int
	calls  map[int]chan cdpMsg
	subs   map[string][]chan json.RawMessage
	err    error
}

type cdpMsg struct {
	ID     int             `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Message string `json:"message"`
	} `json:"error"`
}

// dialCDP connects to a page target's webSocketDebuggerUrl and starts the
// reader, which close stops and joins.
func dialCDP(ctx context.Context, wsURL string) (*Conn, error) {
	ws, err := wsDial(ctx, wsURL)
	if err != nil {
		return nil, err
	}
	c := &Conn{ws: ws, done: make(chan struct{}), calls: map[int]chan cdpMsg{}, subs: map[string][]chan json.RawMessage{}}
	go c.readLoop()
	return c, nil
}

func (c *Conn) readLoop() {
	defer close(c.done)
	for {
		b, err := c.ws.read()
		if err != nil {
			c.mu.Lock()
			c.err = err
			for id, ch := range c.calls {
				close(ch)
				delete(c.calls, id)
			}
			c.mu.Unlock()
			return
		}
		var m cdpMsg
		if json.Unmarshal(b, &m) != nil {
			continue
		}
		c.mu.Lock()
		if m.ID != 0 {
			if ch := c.calls[m.ID]; ch != nil {
				ch <- m
				delete(c.calls, m.ID)
			}
		} else {
			for _, ch := range c.subs[m.Method] {
				select {
				case ch <- m.Params:
				default:
				}
			}
		}
		c.mu.Unlock()
	}
}

// Close ends the connection and joins the reader.
func (c *Conn) Close() {
	c.ws.c.Close()
	<-c.done
}

// Subscribe returns a channel of the params of events named method.
func (c *Conn) Subscribe(method string) <-chan json.RawMessage {
	ch := make(chan json.RawMessage, 64)
	c.mu.Lock()
	c.subs[method] = append(c.subs[method], ch)
	c.mu.Unlock()
	return ch
}

// Call sends a command and waits for its result.
func (c *Conn) Call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	if params == nil {
		params = struct{}{}
	}
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return nil, c.err
	}
	c.nextID++
	id := c.nextID
	ch := make(chan cdpMsg, 1)
	c.calls[id] = ch
	c.mu.Unlock()
	b, _ := json.Marshal(map[string]any{"id": id, "method": method, "params": params})
	if err := c.ws.write(0x1, b); err != nil {
		return nil, err
	}
	select {
	case m, ok := <-ch:
		if !ok {
			return nil, fmt.Errorf("%s: connection lost", method)
		}
		if m.Error != nil {
			return nil, fmt.Errorf("%s: %s", method, m.Error.Message)
		}
		return m.Result, nil
	case <-ctx.Done():
		c.mu.Lock()
		delete(c.calls, id)
		c.mu.Unlock()
		return nil, fmt.Errorf("%s: %w", method, ctx.Err())
	}
}

// Eval evaluates expr in the page (awaiting a promise) and returns its
// value as JSON.
func (c *Conn) Eval(ctx context.Context, expr string) (json.RawMessage, error) {
	res, err := c.Call(ctx, "Runtime.evaluate", map[string]any{
		"expression": expr, "returnByValue": true, "awaitPromise": true,
	})
	if err != nil {
		return nil, err
	}
	var r struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		Exception *struct {
			Text      string `json:"text"`
			Exception struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
	}
	if err := json.Unmarshal(res, &r); err != nil {
		return nil, err
	}
	if r.Exception != nil {
		return nil, fmt.Errorf("evaluating %q: %s %s", expr, r.Exception.Text, r.Exception.Exception.Description)
	}
	return r.Result.Value, nil
}

// WaitFor waits until expr is true in the page, across navigations (a
// navigation destroys the context an evaluation runs in: it is retried).
func (c *Conn) WaitFor(ctx context.Context, expr string) error {
	js := `new Promise(function(res){var end=Date.now()+2000;(function f(){var ok=false;try{ok=!!(` + expr +
		`)}catch(e){}if(ok||Date.now()>end){res(ok);return}setTimeout(f,20)})()})`
	var last error
	for ctx.Err() == nil {
		v, err := c.Eval(ctx, js)
		if err == nil && string(v) == "true" {
			return nil
		}
		last = err
		if err != nil && !strings.Contains(err.Error(), "context") && !strings.Contains(err.Error(), "navigated") {
			return err
		}
	}
	return fmt.Errorf("waiting for %s: %w (last error: %v)", expr, ctx.Err(), last)
}

// Text evaluates expr to a string.
func (c *Conn) Text(ctx context.Context, expr string) (string, error) {
	v, err := c.Eval(ctx, expr)
	if err != nil {
		return "", err
	}
	var s string
	err = json.Unmarshal(v, &s)
	return s, err
}

// Key presses one key (a keyDown with its text, and a keyUp).
func (c *Conn) Key(ctx context.Context, key, code string, vk int, text string) error {
	down := map[string]any{"type": "keyDown", "key": key, "code": code, "windowsVirtualKeyCode": vk, "nativeVirtualKeyCode": vk}
	if text != "" {
		down["text"], down["unmodifiedText"] = text, text
	} else {
		down["type"] = "rawKeyDown"
	}
	if _, err := c.Call(ctx, "Input.dispatchKeyEvent", down); err != nil {
		return err
	}
	_, err := c.Call(ctx, "Input.dispatchKeyEvent", map[string]any{"type": "keyUp", "key": key, "code": code, "windowsVirtualKeyCode": vk, "nativeVirtualKeyCode": vk})
	return err
}

// Screenshot captures the viewport as PNG.
func (c *Conn) Screenshot(ctx context.Context) ([]byte, error) {
	res, err := c.Call(ctx, "Page.captureScreenshot", map[string]any{"format": "png"})
	if err != nil {
		return nil, err
	}
	var r struct {
		Data string `json:"data"`
	}
	if err := json.Unmarshal(res, &r); err != nil {
		return nil, err
	}
	return base64.StdEncoding.DecodeString(r.Data)
}

// ChromiumPath is Debian's chromium; the browser tests skip without it.
const ChromiumPath = "/usr/bin/chromium"

// Start runs headless Chromium in a process group of its own and
// returns a DevTools session on its page, sized as a phone (390×844).
// Cleanup kills the whole group and waits until none of it is left.
func Start(t *testing.T, ctx context.Context) *Conn {
	t.Helper()
	if testing.Short() {
		t.Skip("browser tests run without -short")
	}
	if _, err := os.Stat(ChromiumPath); err != nil {
		t.Skipf("skipping browser test: %s not installed (apt-get install chromium)", ChromiumPath)
	}
	profile := testdir.New(t)
	cmd := exec.Command(ChromiumPath,
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-extensions", "--disable-default-apps", "--no-first-run", "--no-default-browser-check",
		"--password-store=basic", "--use-mock-keychain", "--mute-audio",
		"--user-data-dir="+profile, "--remote-debugging-port=0", "--window-size=390,844",
		"about:blank")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting chromium: %v", err)
	}
	pw.Close()
	pgid := cmd.Process.Pid
	lines := make(chan string, 64)
	readerDone := make(chan struct{})
	go func() { // drains the browser's output until every process of it is gone
		defer close(readerDone)
		defer close(lines)
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			default:
			}
		}
	}()
	t.Cleanup(func() {
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		_ = cmd.Wait()
		poll.Until(t, 20*time.Second, "chromium's process group gone", func() bool {
			return errors.Is(syscall.Kill(-pgid, 0), syscall.ESRCH)
		})
		select {
		case <-readerDone:
		case <-time.After(20 * time.Second):
			t.Error("chromium's output pipe still open after its group was killed")
		}
		pr.Close()
	})

	devtools := regexp.MustCompile(`DevTools listening on (ws://127\.0\.0\.1:(\d+)/\S+)`)
	var port string
	var seen []string
	for port == "" {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("chromium exited before listening:\n%s", strings.Join(seen, "\n"))
			}
			seen = append(seen, l)
			if m := devtools.FindStringSubmatch(l); m != nil {
				port = m[2]
			}
		case <-ctx.Done():
			t.Fatalf("chromium did not start listening:\n%s", strings.Join(seen, "\n"))
		}
	}
	// The page target's own endpoint.
	var targets []struct {
		Type string `json:"type"`
		WS   string `json:"webSocketDebuggerUrl"`
	}
	req, _ := http.NewRequestWithContext(ctx, "GET", "http://127.0.0.1:"+port+"/json/list", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	err = json.NewDecoder(resp.Body).Decode(&targets)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	var wsURL string
	for _, tg := range targets {
		if tg.Type == "page" {
			wsURL = tg.WS
			break
		}
	}
	if wsURL == "" {
		t.Fatalf("no page target in %+v", targets)
	}
	c, err := dialCDP(ctx, wsURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	for _, cmd := range []struct {
		method string
		params any
	}{
		{"Page.enable", nil},
		{"Runtime.enable", nil},
		{"Emulation.setDeviceMetricsOverride", map[string]any{"width": 390, "height": 844, "deviceScaleFactor": 2, "mobile": true}},
	} {
		if _, err := c.Call(ctx, cmd.method, cmd.params); err != nil {
			t.Fatal(err)
		}
	}
	return c
}
