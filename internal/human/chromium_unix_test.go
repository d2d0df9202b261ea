//go:build unix

package human

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/yieldshell/yieldshell/internal/poll"
	"github.com/yieldshell/yieldshell/internal/testdir"
)

// chromiumPath is Debian's chromium; the browser tests skip without it.
const chromiumPath = "/usr/bin/chromium"

// screenshotDir is where the browser tests leave their screenshots: the
// directory in $YIELDSHELL_SCREENSHOTS if set (to look at them), else a
// temporary one.
func screenshotDir(t *testing.T) string {
	if d := os.Getenv("YIELDSHELL_SCREENSHOTS"); d != "" {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	return testdir.New(t)
}

// startChromium runs headless Chromium in a process group of its own and
// returns a DevTools session on its page, sized as a phone (390×844).
// Cleanup kills the whole group and waits until none of it is left.
func startChromium(t *testing.T, ctx context.Context) *cdp {
	t.Helper()
	if _, err := os.Stat(chromiumPath); err != nil {
		t.Skipf("skipping browser test: %s not installed (apt-get install chromium)", chromiumPath)
	}
	profile := testdir.New(t)
	cmd := exec.Command(chromiumPath,
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
	t.Cleanup(c.close)
	for _, cmd := range []struct {
		method string
		params any
	}{
		{"Page.enable", nil},
		{"Runtime.enable", nil},
		{"Emulation.setDeviceMetricsOverride", map[string]any{"width": 390, "height": 844, "deviceScaleFactor": 2, "mobile": true}},
	} {
		if _, err := c.call(ctx, cmd.method, cmd.params); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

// navigate loads u and waits until it is the document, loaded.
func navigate(t *testing.T, ctx context.Context, c *cdp, u string) {
	t.Helper()
	if _, err := c.call(ctx, "Page.navigate", map[string]any{"url": u}); err != nil {
		t.Fatal(err)
	}
	must(t, c.waitFor(ctx, fmt.Sprintf(`location.href===%q && document.readyState==="complete"`, u)))
}

func shoot(t *testing.T, ctx context.Context, c *cdp, dir, name string) {
	t.Helper()
	png, err := c.screenshot(ctx)
	must(t, err)
	path := filepath.Join(dir, name)
	must(t, os.WriteFile(path, png, 0o644))
	t.Logf("screenshot: %s", path)
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestChromiumSecretPage: a person opens the secret page in a browser,
// types the secret and presses Enter; the program gets exactly those
// bytes; the page says so with no secret in its URL; a reload says the
// page is used up.
func TestChromiumSecretPage(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	c := startChromium(t, ctx)
	shots := screenshotDir(t)

	logs := &syncBuffer{}
	p, err := New(Config{Logger: newTestLogger(logs)}) // stdio mode: its own loopback listener
	must(t, err)
	t.Cleanup(func() { closePages(t, p) })
	s := &sink{}
	pg := openSecret(t, p, s)

	navigate(t, ctx, c, pg.URL())
	must(t, c.waitFor(ctx, `document.querySelector("input[type=password]#secret[autocomplete=off]")`))
	// The inline style applied: the policy let it through.
	bg, err := c.text(ctx, `getComputedStyle(document.querySelector("button.go")).backgroundColor`)
	must(t, err)
	if bg != "rgb(47, 111, 222)" {
		t.Errorf("submit button background %q: the style did not apply", bg)
	}
	if w, err := c.text(ctx, `String(document.documentElement.scrollWidth)`); err != nil || w != "390" {
		t.Errorf("page width %q (%v): want 390, no horizontal scrolling", w, err)
	}
	shoot(t, ctx, c, shots, "secret-page.png")

	const secret = "correct horse battery staple ✓ &%+="
	_, err = c.eval(ctx, `document.getElementById("secret").focus()`)
	must(t, err)
	_, err = c.call(ctx, "Input.insertText", map[string]any{"text": secret})
	must(t, err)
	must(t, c.key(ctx, "Enter", "Enter", 13, "\r"))
	must(t, c.waitFor(ctx, `location.pathname.endsWith("/result") && document.body.innerText.includes("Sent")`))
	shoot(t, ctx, c, shots, "secret-sent.png")

	if got := s.submitted(); len(got) != 1 || got[0] != secret {
		t.Fatalf("the program got %q, want exactly [%q]", got, secret)
	}
	href, err := c.text(ctx, `location.href`)
	must(t, err)
	if href != pg.URL()+"/result" || strings.Contains(href, "horse") || strings.Contains(href, "?") {
		t.Errorf("after submit the URL is %q", href)
	}
	// History: the POST's entry was replaced by the result (303), so the
	// tab holds the blank page, the form and the result.
	if n, err := c.text(ctx, `String(history.length)`); err != nil || n != "3" {
		t.Errorf("history length %q (%v), want 3", n, err)
	}

	navigate(t, ctx, c, pg.URL()) // opening the link again
	must(t, c.waitFor(ctx, `document.body.innerText.includes("used")`))
	if _, err := c.call(ctx, "Page.reload", nil); err != nil {
		t.Fatal(err)
	}
	must(t, c.waitFor(ctx, `document.readyState==="complete" && document.body.innerText.includes("has been used")`))
	shoot(t, ctx, c, shots, "secret-used.png")
	if got := s.submitted(); len(got) != 1 {
		t.Errorf("submitted %d times", len(got))
	}
	if strings.Contains(logs.String(), "horse") {
		t.Errorf("the log holds the secret:\n%s", logs)
	}
}

// TestChromiumHandoverPage: the screen shows and follows changes, keys
// typed in the page reach the terminal, Done hands it back.
func TestChromiumHandoverPage(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	c := startChromium(t, ctx)
	shots := screenshotDir(t)

	p, err := New(Config{})
	must(t, err)
	t.Cleanup(func() { closePages(t, p) })
	tm := newTerm("dev@box:~/src$ git rebase -i main\nhint: Waiting for your editor to close the file...")
	pg, err := p.Open(ctx, Request{
		Terminal: tm,
		Program:  Program{Command: "git rebase -i main", PID: 31337, Name: "git"},
		Message:  "The rebase stopped in an editor; please pick the commits and save.",
	})
	must(t, err)

	navigate(t, ctx, c, pg.URL())
	must(t, c.waitFor(ctx, `document.getElementById("status").textContent.startsWith("Live")`))
	must(t, c.waitFor(ctx, `document.getElementById("screen").textContent.includes("git rebase -i main")`))
	select {
	case <-pg.Opened():
	case <-ctx.Done():
		t.Fatal("Opened not closed")
	}
	shoot(t, ctx, c, shots, "handover-page.png")

	tm.set("pick 1a2b3c first\npick 4d5e6f second\n~\n-- INSERT --")
	must(t, c.waitFor(ctx, `document.getElementById("screen").textContent.includes("-- INSERT --")`))

	// Text and Enter from the field, a button, a key on the focused screen.
	_, err = c.eval(ctx, `document.getElementById("text").focus()`)
	must(t, err)
	_, err = c.call(ctx, "Input.insertText", map[string]any{"text": ":wq"})
	must(t, err)
	must(t, c.key(ctx, "Enter", "Enter", 13, "\r"))
	tm.waitKeys(t, ":wq\r")
	_, err = c.eval(ctx, `document.querySelector("button[data-k=ctrlc]").click()`)
	must(t, err)
	tm.waitKeys(t, ":wq\r\x03")
	_, err = c.eval(ctx, `document.getElementById("screen").focus()`)
	must(t, err)
	must(t, c.key(ctx, "ArrowUp", "ArrowUp", 38, ""))
	must(t, c.key(ctx, "q", "KeyQ", 81, "q"))
	tm.waitKeys(t, ":wq\r\x03\x1b[Aq")
	tm.set("Successfully rebased and updated refs/heads/topic.\ndev@box:~/src$ ")
	must(t, c.waitFor(ctx, `document.getElementById("screen").textContent.includes("Successfully rebased")`))
	shoot(t, ctx, c, shots, "handover-live.png")

	_, err = c.eval(ctx, `document.querySelector("input[value=done]").form.querySelector("button").click()`)
	must(t, err)
	if o, err := pg.Wait(ctx); err != nil || o != Done {
		t.Fatalf("outcome %q, %v; want done", o, err)
	}
	must(t, c.waitFor(ctx, `location.pathname.endsWith("/result") && document.body.innerText.includes("Handed back")`))
}
