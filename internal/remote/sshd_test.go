package remote

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/yieldshell/yieldshell/internal/policy"
	"github.com/yieldshell/yieldshell/internal/poll"
	"github.com/yieldshell/yieldshell/internal/session"
	"github.com/yieldshell/yieldshell/internal/sshdtest"
)

// sshManager is a server's Manager (the local engine runs ssh) that
// reaches "box" through h.
func sshManager(t testing.TB, h *sshdtest.Host) *session.Manager {
	t.Helper()
	cfg, err := policy.Load(func(string) string { return "" }, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	o, err := session.LocalOptions(nil)
	if err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	o.Hosts = NewHosts(Config{SSH: h.SSH, Self: self, Timing: Timing{Call: 10 * time.Second, Grace: time.Minute}})
	m, err := session.NewManager(cfg, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := contextTimeout(20 * time.Second)
		defer cancel()
		m.Shutdown(ctx)
	})
	return m
}

// TestSSHEcho: a command on another host over the user's ssh, with the
// executor copied once into a private directory there.
func TestSSHEcho(t *testing.T) {
	h := sshdtest.Start(t)
	m := sshManager(t, h)
	p := start(t, m, session.Spec{Command: "echo hello from $(whoami)", TTY: true, Host: "box"})
	await(t, p, session.ReasonExited)
	if got := output(p); got != "hello from "+h.User+"\n" {
		t.Errorf("output %q", got)
	}
	dir := filepath.Join(h.Home, ".cache", "yieldshell")
	files, _ := filepath.Glob(filepath.Join(dir, "yieldshell-*"))
	if len(files) != 1 {
		t.Fatalf("executor copies: %v", files)
	}
	for _, f := range []string{dir, files[0]} {
		if fi, err := os.Stat(f); err != nil || fi.Mode().Perm() != 0o700 {
			t.Errorf("%s: mode %v (%v), want 0700", f, fi.Mode(), err)
		}
	}
	// The connection is reused: a second command starts no second ssh.
	q := start(t, m, session.Spec{Command: "echo again", TTY: true, Host: "box"})
	await(t, q, session.ReasonExited)
	if n := countRuns(m, "ssh@box"); n != 1 {
		t.Errorf("%d ssh processes, want 1 connection reused", n)
	}
}

func countRuns(m *session.Manager, name string) int {
	n := 0
	for _, p := range m.List() {
		if p.Name == name {
			n++
		}
	}
	return n
}

// TestSSHWaits: remote input waits are seen as locally, from the remote
// kernel; a password typed with the kernel's evidence shows nowhere.
func TestSSHWaits(t *testing.T) {
	h := sshdtest.Start(t)
	checkWaits(t, sshManager(t, h), false) // the throwaway user
}

// TestSSHStopDaemonized: stop ends a remote tree whose child left its
// session.
func TestSSHStopDaemonized(t *testing.T) {
	h := sshdtest.Start(t)
	m := sshManager(t, h)
	marker := "3" + strconv.Itoa(int(time.Now().UnixNano()%100000))
	p := start(t, m, session.Spec{Command: "setsid sleep " + marker + " & echo started; sleep " + marker, TTY: true, Host: "box"})
	alive := func() bool { return exec.Command("pgrep", "-u", h.User, "-f", "sleep "+marker).Run() == nil }
	poll.Until(t, 10*time.Second, "the daemon running", alive)
	if _, err := p.Stop(t.Context(), 15, 2*time.Second, session.EndedByStop); err != nil {
		t.Fatal(err)
	}
	poll.Until(t, 10*time.Second, "the daemon gone", func() bool { return !alive() })
}

// TestSSHDropped: killing ssh drops the connection; the server reconnects
// and the process's output comes through whole.
func TestSSHDropped(t *testing.T) {
	h := sshdtest.Start(t)
	m := sshManager(t, h)
	p := start(t, m, session.Spec{Command: `for i in $(seq 1 300); do echo "line $i"; sleep 0.005; done; read -p 'done? ' x`, TTY: false, Host: "box"})
	poll.Until(t, 10*time.Second, "some output", func() bool { return strings.Contains(output(p), "line 20\n") })
	ssh, err := m.Get("ssh@box")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ssh.Stop(t.Context(), 9, 0, session.EndedByStop); err != nil {
		t.Fatal(err)
	}
	await(t, p, session.ReasonInputWait)
	var want strings.Builder
	for i := 1; i <= 300; i++ {
		want.WriteString("line " + strconv.Itoa(i) + "\n")
	}
	if got := output(p); got != want.String() {
		t.Errorf("after the drop: %d bytes, want %d", len(got), want.Len())
	}
	if n := countRuns(m, "ssh@box"); n < 2 {
		t.Errorf("%d ssh runs: no reconnection", n)
	}
}

// TestSSHAsks: ssh's own question (a key's passphrase) is asked on the
// local process ssh@box, which waits for a password as the kernel shows
// it; the failed start says so. Once it is answered there, the start goes
// through on that same ssh, and the passphrase shows nowhere.
func TestSSHAsks(t *testing.T) {
	h := sshdtest.Start(t)
	const passphrase = "key-passphrase-42"
	h.Protect(t, passphrase)
	m := sshManager(t, h)
	spec := session.Spec{Command: "echo in", SideEffects: []string{"NONE"}, TTY: true, Host: "box"}
	_, err := m.Start(t.Context(), spec)
	if err == nil || !strings.Contains(err.Error(), "passphrase") {
		t.Fatalf("start while ssh asks: %v", err)
	}
	ssh, err2 := m.Get("ssh@box")
	if err2 != nil || !strings.Contains(err.Error(), ssh.ID) {
		t.Fatalf("the error does not name the ssh process (%v): %v", err2, err)
	}
	o, ok := ssh.AwaitPassword(t.Context(), time.Now().Add(20*time.Second))
	if !ok {
		t.Fatalf("ssh's passphrase prompt is no password wait: %+v", o.Input)
	}
	ssh.AddSecret(passphrase)
	if err := ssh.Type(t.Context(), passphrase, nil, true, false); err != nil {
		t.Fatal(err)
	}
	p := start(t, m, spec)
	await(t, p, session.ReasonExited)
	if output(p) != "in\n" || countRuns(m, "ssh@box") != 1 {
		t.Errorf("after the answer: %q, %d ssh runs", output(p), countRuns(m, "ssh@box"))
	}
	if strings.Contains(output(ssh), passphrase) {
		t.Errorf("the passphrase shows in ssh's log: %q", output(ssh))
	}
}
