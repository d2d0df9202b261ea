//go:build unix

package conformance

// Headless Chromium for the ask_human tests, adapted from internal/human's
// browser tests.

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"os/exec"
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

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
