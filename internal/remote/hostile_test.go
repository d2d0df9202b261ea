package remote

import (
	"bufio"
	"context"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/yieldshell/yieldshell/internal/session"
)

// hostileDialer connects to a stand-in for an executor that misbehaves.
type hostileDialer struct {
	t    *testing.T
	play func(net.Conn)
}

func (d hostileDialer) Dial(context.Context, string) (io.ReadWriteCloser, error) {
	a, b := net.Pipe()
	done := make(chan struct{})
	go func() { defer close(done); d.play(b) }()
	d.t.Cleanup(func() { _ = b.Close(); <-done })
	return a, nil
}

// answerHello reads the hello and answers it, as an executor would.
func answerHello(c net.Conn) *bufio.Reader {
	r := bufio.NewReader(c)
	if _, err := r.ReadString('\n'); err == nil {
		_, _ = io.WriteString(c, `{"id":1,"re":true,"hello":{"version":1}}`+"\n")
	}
	return r
}

var hostile = map[string]func(net.Conn){
	"garbage": func(c net.Conn) {
		answerHello(c)
		_, _ = io.WriteString(c, "\x1b]0;pwned\x07 not a message at all\n")
		_, _ = io.Copy(io.Discard, c)
	},
	"flood": func(c net.Conn) { // one endless line
		answerHello(c)
		line := strings.Repeat("A", 64<<10)
		for {
			if _, err := io.WriteString(c, line); err != nil {
				return
			}
		}
	},
	"hang": func(c net.Conn) { _, _ = io.Copy(io.Discard, c) },
	"events": func(c net.Conn) { // valid messages naming nothing the server knows
		r := answerHello(c)
		go func() { _, _ = io.Copy(io.Discard, r) }()
		for {
			if _, err := io.WriteString(c, `{"op":"out","proc":99,"seq":0,"data":"aGk="}`+"\n"+`{"id":77,"re":true}`+"\n"); err != nil {
				return
			}
		}
	},
	"bad-version": func(c net.Conn) {
		r := bufio.NewReader(c)
		_, _ = r.ReadString('\n')
		_, _ = io.WriteString(c, `{"id":1,"re":true,"hello":{"version":99}}`+"\n")
		_, _ = io.Copy(io.Discard, r)
	},
}

// TestHostileExecutor: an executor that sends garbage, floods, hangs or
// names what does not exist costs a failed start on its host, within the
// call timeout, and nothing else: the same server runs a command on a
// good host meanwhile and after.
func TestHostileExecutor(t *testing.T) {
	good := inProcess(t)
	m := newRemoteManager(t, func(host string) Dialer {
		if play, ok := hostile[host]; ok {
			return hostileDialer{t, play}
		}
		return good
	})
	for name := range hostile {
		t.Run(name, func(t *testing.T) {
			began := time.Now()
			_, err := m.Start(t.Context(), session.Spec{Command: "echo hi", SideEffects: []string{"NONE"}, TTY: true, Host: name})
			if err == nil {
				t.Fatal("a start through a hostile executor succeeded")
			}
			if d := time.Since(began); d > 10*time.Second {
				t.Errorf("the start took %s to fail", d)
			}
			t.Logf("refused: %v", err)
			p := start(t, m, session.Spec{Command: "echo still here", TTY: true, Host: "good"})
			await(t, p, session.ReasonExited)
		})
	}
}

// TestRefusesOtherSystems: a host this build cannot run on is refused by
// name, saying what is needed and what is left.
func TestRefusesOtherSystems(t *testing.T) {
	d := &sshDialer{host: "pi", cfg: &Config{}}
	err := d.send(nil, []string{"Linux", "armv7l"})
	if err == nil || !strings.Contains(err.Error(), "linux/armv7l build of yieldshell is needed") || !strings.Contains(err.Error(), "secret_at_text_prompt") {
		t.Errorf("refusal: %v", err)
	}
	for _, c := range [][4]string{{"Linux", "x86_64", "linux", "amd64"}, {"Darwin", "arm64", "darwin", "arm64"}, {"Linux", "aarch64", "linux", "arm64"}} {
		if os, arch := goSystem(c[0], c[1]); os != c[2] || arch != c[3] {
			t.Errorf("goSystem(%s, %s) = %s/%s", c[0], c[1], os, arch)
		}
	}
}

// TestHostsRefused: a host an agent names that is an ssh option, or
// carries what a shell or an id would read, is refused before anything
// runs; so is one YIELDSHELL_HOSTS does not list.
func TestHostsRefused(t *testing.T) {
	h := NewHosts(Config{Allowed: []string{"box"}, Dialer: func(string, *session.Manager) Dialer {
		t.Error("dialled a refused host")
		return nil
	}})
	for _, host := range []string{"-oProxyCommand=touch /tmp/x", "a b", "box;rm", "box/../x", "", "x\nbox", "other"} {
		if _, _, err := h.Host(t.Context(), host, nil); err == nil {
			t.Errorf("host %q accepted", host)
		}
	}
	if _, _, err := h.Host(t.Context(), "other", nil); err == nil || !strings.Contains(err.Error(), "YIELDSHELL_HOSTS") {
		t.Errorf("a host not allowed: %v", err)
	}
}

// TestRemoteSpecRefused: a relative cwd means nothing on another host,
// and a screen over the limit is refused there as here.
func TestRemoteSpecRefused(t *testing.T) {
	m := newRemoteManager(t, func(string) Dialer {
		t.Error("dialled for a refused start")
		return nil
	})
	for _, s := range []session.Spec{
		{Command: "pwd", Cwd: "src", Host: "box"},
		{Command: "pwd", TTY: true, Cols: 1000, Rows: 1000, Host: "box"},
	} {
		s.SideEffects = []string{"NONE"}
		if p, err := m.Start(t.Context(), s); err == nil {
			t.Errorf("%+v started %s", s, p.ID)
		}
	}
}
