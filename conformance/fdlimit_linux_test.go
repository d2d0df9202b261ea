package conformance

import (
	"context"
	"net"
	"net/url"
	"testing"
	"time"
)

// With a descriptor limit of 1024 and 3000 idle anonymous connections, the
// client with the token still starts commands (each needs a terminal) and
// a fresh client connects within a second.
//
// Spec: issue 38 item 4: "with ulimit -n 1024 and 3000 idle connections, the authenticated client's commands start and a fresh client answers within 1 s."

func TestHTTPDescriptorsForTheClient(t *testing.T) {
	need(t, "bash")
	if testing.Short() {
		t.Skip("opens 3000 connections")
	}
	h := startHTTPUnder(t, t.Context(), []string{"bash", "-c", `ulimit -n 1024 && exec "$@"`, "bash"})
	cs, err := h.connect(httpToken)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	s := &server{t: t, cs: cs}
	u, err := url.Parse(h.url)
	if err != nil {
		t.Fatal(err)
	}
	var idle []net.Conn
	t.Cleanup(func() {
		for _, c := range idle {
			c.Close()
		}
	})
	for range 3000 {
		c, err := net.DialTimeout("tcp", u.Host, 5*time.Second)
		if err != nil {
			t.Fatalf("connection %d: %v", len(idle), err)
		}
		idle = append(idle, c)
	}
	for i := range 3 {
		if r := s.exec("echo started", nil); r.str("status") != "completed" || r.str("stdout") != "started\n" {
			t.Errorf("command %d of the client with the token, among 3000 idle connections: %s", i, r.text)
		}
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Second)
	defer cancel()
	start := time.Now()
	fresh, err := h.connectCtx(ctx, httpToken)
	if err != nil {
		t.Fatalf("a fresh client after %v: %v", time.Since(start), err)
	}
	defer fresh.Close()
	if _, err := fresh.ListTools(ctx, nil); err != nil {
		t.Errorf("a fresh client listing tools after %v: %v", time.Since(start), err)
	}
	t.Logf("a fresh client connected and answered in %v", time.Since(start))
}
