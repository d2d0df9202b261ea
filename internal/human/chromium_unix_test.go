//go:build unix

package human

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/yieldshell/yieldshell/internal/cdptest"
	"github.com/yieldshell/yieldshell/internal/poll"
	"github.com/yieldshell/yieldshell/internal/testdir"
)

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

// navigate loads u and waits until it is the document, loaded.
func navigate(t *testing.T, ctx context.Context, c *cdptest.Conn, u string) {
	t.Helper()
	if _, err := c.Call(ctx, "Page.navigate", map[string]any{"url": u}); err != nil {
		t.Fatal(err)
	}
	must(t, c.WaitFor(ctx, fmt.Sprintf(`location.href===%q && document.readyState==="complete"`, u)))
}

func shoot(t *testing.T, ctx context.Context, c *cdptest.Conn, dir, name string) {
	t.Helper()
	png, err := c.Screenshot(ctx)
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
	c := cdptest.Start(t, ctx)
	shots := screenshotDir(t)

	logs := &syncBuffer{}
	p, err := New(Config{Logger: newTestLogger(logs)}) // stdio mode: its own loopback listener
	must(t, err)
	t.Cleanup(func() { closePages(t, p) })
	s := &sink{}
	pg := openSecret(t, p, s)

	navigate(t, ctx, c, pg.URL())
	must(t, c.WaitFor(ctx, `document.querySelector("input[type=password]#secret[autocomplete=off]")`))
	// The inline style applied: the policy let it through.
	bg, err := c.Text(ctx, `getComputedStyle(document.querySelector("button.go")).backgroundColor`)
	must(t, err)
	if bg != "rgb(47, 111, 222)" {
		t.Errorf("submit button background %q: the style did not apply", bg)
	}
	if w, err := c.Text(ctx, `String(document.documentElement.scrollWidth)`); err != nil || w != "390" {
		t.Errorf("page width %q (%v): want 390, no horizontal scrolling", w, err)
	}
	shoot(t, ctx, c, shots, "secret-page.png")

	const secret = "correct horse battery staple ✓ &%+="
	_, err = c.Eval(ctx, `document.getElementById("secret").focus()`)
	must(t, err)
	_, err = c.Call(ctx, "Input.insertText", map[string]any{"text": secret})
	must(t, err)
	must(t, c.Key(ctx, "Enter", "Enter", 13, "\r"))
	must(t, c.WaitFor(ctx, `location.pathname.endsWith("/result") && document.body.innerText.includes("Sent")`))
	shoot(t, ctx, c, shots, "secret-sent.png")

	if got := s.submitted(); len(got) != 1 || got[0] != secret {
		t.Fatalf("the program got %q, want exactly [%q]", got, secret)
	}
	href, err := c.Text(ctx, `location.href`)
	must(t, err)
	if href != pg.URL()+"/result" || strings.Contains(href, "horse") || strings.Contains(href, "?") {
		t.Errorf("after submit the URL is %q", href)
	}
	// History: the POST's entry was replaced by the result (303), so the
	// tab holds the blank page, the form and the result.
	if n, err := c.Text(ctx, `String(history.length)`); err != nil || n != "3" {
		t.Errorf("history length %q (%v), want 3", n, err)
	}

	navigate(t, ctx, c, pg.URL()) // opening the link again
	must(t, c.WaitFor(ctx, `document.body.innerText.includes("used")`))
	if _, err := c.Call(ctx, "Page.reload", nil); err != nil {
		t.Fatal(err)
	}
	must(t, c.WaitFor(ctx, `document.readyState==="complete" && document.body.innerText.includes("has been used")`))
	shoot(t, ctx, c, shots, "secret-used.png")
	if got := s.submitted(); len(got) != 1 {
		t.Errorf("submitted %d times", len(got))
	}
	if strings.Contains(logs.String(), "horse") {
		t.Errorf("the log holds the secret:\n%s", logs)
	}
}

// TestChromiumHandoverPage: the page is a terminal (xterm.js): the screen
// shows with its colours and cursor and follows changes; keys typed into
// it, a paste and the key buttons reach the program; the terminal takes
// the window's size, at desktop and phone sizes; Done hands it back and
// says so in green.
func TestChromiumHandoverPage(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	c := cdptest.Start(t, ctx)
	shots := screenshotDir(t)

	p, err := New(Config{})
	must(t, err)
	t.Cleanup(func() { closePages(t, p) })
	tm := newTerm("dev@box:~/src$ git rebase -i main\nhint: \x1b[1;31mWaiting\x1b[0m for your editor to close the file...")
	pg, err := p.Open(ctx, Request{
		Terminal: tm,
		Program:  Program{Command: "git rebase -i main", PID: 31337, Name: "git"},
		Message:  "The rebase stopped in an editor; please pick the commits and save.",
	})
	must(t, err)
	rows := `document.querySelector(".xterm-rows").textContent`
	metrics := func(w, h int, mobile bool) {
		t.Helper()
		_, err := c.Call(ctx, "Emulation.setDeviceMetricsOverride", map[string]any{
			"width": w, "height": h, "deviceScaleFactor": 1, "mobile": mobile})
		must(t, err)
	}

	metrics(1280, 800, false)
	navigate(t, ctx, c, pg.URL())
	must(t, c.WaitFor(ctx, `document.getElementById("status").textContent.startsWith("Live")`))
	must(t, c.WaitFor(ctx, rows+`.includes("git rebase -i main")`))
	// Colour: the escape sequences reach the terminal, not the text.
	must(t, c.WaitFor(ctx, `document.querySelector(".xterm-rows span.xterm-bold") && !`+rows+`.includes("[1;31m")`))
	select {
	case <-pg.Opened():
	case <-ctx.Done():
		t.Fatal("Opened not closed")
	}
	desktop := waitSize(t, ctx, tm)
	shoot(t, ctx, c, shots, "handover-desktop.png")

	tm.set("pick 1a2b3c first\npick 4d5e6f second\n~\n-- INSERT --")
	must(t, c.WaitFor(ctx, rows+`.includes("-- INSERT --")`))

	// Typed into the terminal, pasted, a key button, arrow keys.
	_, err = c.Eval(ctx, `document.querySelector(".xterm-helper-textarea").focus()`)
	must(t, err)
	_, err = c.Call(ctx, "Input.insertText", map[string]any{"text": ":wq"})
	must(t, err)
	must(t, c.Key(ctx, "Enter", "Enter", 13, "\r"))
	tm.waitKeys(t, ":wq\r")
	_, err = c.Eval(ctx, `document.querySelector("button[data-k=ctrlc]").click()`)
	must(t, err)
	tm.waitKeys(t, ":wq\r\x03")
	_, err = c.Eval(ctx, `document.querySelector(".xterm-helper-textarea").focus()`)
	must(t, err)
	must(t, c.Key(ctx, "ArrowUp", "ArrowUp", 38, ""))
	must(t, c.Key(ctx, "q", "KeyQ", 81, "q"))
	tm.waitKeys(t, ":wq\r\x03\x1b[Aq")

	// A phone: the terminal takes the smaller window.
	metrics(390, 844, true)
	phone := waitSizeNot(t, ctx, tm, desktop)
	tm.set("Successfully rebased and updated refs/heads/topic.\ndev@box:~/src$ ")
	must(t, c.WaitFor(ctx, rows+`.includes("Successfully rebased")`))
	shoot(t, ctx, c, shots, "handover-phone.png")
	t.Logf("terminal size: desktop %s, phone %s", desktop, phone)

	_, err = c.Eval(ctx, `document.querySelector("input[value=done]").form.querySelector("button").click()`)
	must(t, err)
	if o, err := pg.Wait(ctx); err != nil || o != Done {
		t.Fatalf("outcome %q, %v; want done", o, err)
	}
	must(t, c.WaitFor(ctx, `location.pathname.endsWith("/result") && document.body.innerText.includes("Handed back")`))
}

// waitSize waits for the page to size the terminal, and returns the size.
func waitSize(t *testing.T, ctx context.Context, tm *term) string {
	t.Helper()
	return waitSizeNot(t, ctx, tm, "")
}

// waitSizeNot waits for a size other than not.
func waitSizeNot(t *testing.T, ctx context.Context, tm *term, not string) string {
	t.Helper()
	var s string
	poll.Until(t, 20*time.Second, "the page to size the terminal", func() bool {
		s = tm.gotSize()
		return s != "" && s != not
	})
	return s
}
