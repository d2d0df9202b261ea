package remote

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/yieldshell/yieldshell/internal/policy"
	"github.com/yieldshell/yieldshell/internal/poll"
	"github.com/yieldshell/yieldshell/internal/session"
)

// sshHost is a real sshd on 127.0.0.1 that lets a throwaway user in with
// a generated key, and the ssh command that reaches it as host "box".
type sshHost struct {
	user, home string
	ssh        []string
}

// newSSHHost starts sshd and creates its user; both go at cleanup, after
// every process of the user ended.
func newSSHHost(t *testing.T) *sshHost {
	t.Helper()
	if testing.Short() {
		t.Skip("starts sshd: not in -short")
	}
	const sshd = "/usr/sbin/sshd"
	for _, p := range []string{sshd, "ssh", "ssh-keygen", "useradd", "userdel", "pgrep"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Skipf("needs %s", p)
		}
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root: sshd and useradd")
	}
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	h := &sshHost{user: "ysr" + randHex(4)}
	// "*": no password, but not locked (sshd refuses a locked account).
	runCmd(t, "useradd", "-m", "-s", "/bin/bash", "-p", "*", h.user)
	t.Cleanup(func() { h.remove(t) })
	u, err := user.Lookup(h.user)
	if err != nil {
		t.Fatal(err)
	}
	h.home = u.HomeDir
	runCmd(t, "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", filepath.Join(dir, "hostkey"))
	runCmd(t, "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", filepath.Join(dir, "id"))
	pub, err := os.ReadFile(filepath.Join(dir, "id.pub"))
	if err != nil {
		t.Fatal(err)
	}
	ssh := filepath.Join(h.home, ".ssh")
	writeOwned(t, u, ssh, "", 0o700)
	writeOwned(t, u, filepath.Join(ssh, "authorized_keys"), string(pub), 0o600)
	port := freePort(t)
	writeFile(t, filepath.Join(dir, "sshd_config"), fmt.Sprintf(`Port %d
ListenAddress 127.0.0.1
HostKey %s/hostkey
PidFile %s/sshd.pid
AuthorizedKeysFile .ssh/authorized_keys
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
AllowUsers %s
LogLevel ERROR
`, port, dir, dir, h.user))
	writeFile(t, filepath.Join(dir, "ssh_config"), fmt.Sprintf(`Host box
  HostName 127.0.0.1
  Port %d
  User %s
  IdentityFile %s/id
  IdentitiesOnly yes
  StrictHostKeyChecking accept-new
  UserKnownHostsFile %s/known_hosts
  GlobalKnownHostsFile /dev/null
  ControlMaster no
`, port, h.user, dir, dir))
	h.ssh = []string{"ssh", "-F", filepath.Join(dir, "ssh_config")}
	_ = os.MkdirAll("/run/sshd", 0o755) // sshd's privilege separation directory
	cmd := exec.Command(sshd, "-D", "-e", "-f", filepath.Join(dir, "sshd_config"))
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	poll.Until(t, 10*time.Second, "sshd listening (its pid file)", func() bool {
		_, err := os.Stat(filepath.Join(dir, "sshd.pid"))
		return err == nil
	})
	return h
}

// remove waits for the user's processes to end (the executor ends once
// its server went and it keeps nothing), then deletes the user.
func (h *sshHost) remove(t *testing.T) {
	gone := poll.Within(20*time.Second, func() bool {
		return exec.Command("pgrep", "-u", h.user).Run() != nil
	})
	if !gone {
		out, _ := exec.Command("pgrep", "-a", "-u", h.user).Output()
		t.Errorf("processes of %s left behind: %s", h.user, out)
	}
	if out, err := exec.Command("userdel", "-r", "-f", h.user).CombinedOutput(); err != nil {
		t.Errorf("userdel: %v: %s", err, out)
	}
}

// sshManager is a server's Manager (the local engine runs ssh) that
// reaches "box" through h.
func sshManager(t *testing.T, h *sshHost) *session.Manager {
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
	o.Hosts = NewHosts(Config{SSH: h.ssh, Self: self, Timing: Timing{Call: 10 * time.Second, Grace: time.Minute}})
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

func randHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func runCmd(t *testing.T, name string, args ...string) {
	t.Helper()
	if out, err := exec.Command(name, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v: %s", name, err, out)
	}
}

func writeFile(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// writeOwned makes a directory (content "") or a file owned by u.
func writeOwned(t *testing.T, u *user.User, path, content string, mode os.FileMode) {
	t.Helper()
	var err error
	if content == "" {
		err = os.Mkdir(path, mode)
	} else {
		err = os.WriteFile(path, []byte(content), mode)
	}
	if err != nil {
		t.Fatal(err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	if err := os.Chown(path, uid, gid); err != nil {
		t.Fatal(err)
	}
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// TestSSHEcho: a command on another host over the user's ssh, with the
// executor copied once into a private directory there.
func TestSSHEcho(t *testing.T) {
	h := newSSHHost(t)
	m := sshManager(t, h)
	p := start(t, m, session.Spec{Command: "echo hello from $(whoami)", TTY: true, Host: "box"})
	await(t, p, session.ReasonExited)
	if got := output(p); got != "hello from "+h.user+"\n" {
		t.Errorf("output %q", got)
	}
	dir := filepath.Join(h.home, ".cache", "yieldshell")
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
	h := newSSHHost(t)
	m := sshManager(t, h)
	for _, c := range waits {
		t.Run(c.name, func(t *testing.T) {
			needs(t, c.prog)
			p := start(t, m, session.Spec{Command: c.command, TTY: true, Host: "box"})
			o := await(t, p, session.ReasonInputWait)
			if o.Input.Kind != c.kind || o.Input.Signal != c.signal {
				t.Errorf("waits as %s on %s, want %s on %s", o.Input.Kind, o.Input.Signal, c.kind, c.signal)
			}
			if err := p.Type(t.Context(), "x", nil, true, false); err != nil {
				t.Fatal(err)
			}
			await(t, p, session.ReasonExited)
		})
	}
	t.Run("password", func(t *testing.T) {
		p := start(t, m, session.Spec{Command: `read -s -p 'Password: ' pw; echo; echo "got $pw"`, TTY: true, Host: "box"})
		if _, ok := p.AwaitPassword(t.Context(), time.Now().Add(20*time.Second)); !ok {
			t.Fatalf("no password read seen: %q", output(p))
		}
		const secret = "s3cret-over-ssh"
		p.AddSecret(secret)
		if err := p.Type(t.Context(), secret, nil, true, false); err != nil {
			t.Fatal(err)
		}
		await(t, p, session.ReasonExited)
		if out := output(p); strings.Contains(out, secret) || !strings.Contains(out, "got ") {
			t.Errorf("output %q", out)
		}
	})
}

// TestSSHStopDaemonized: stop ends a remote tree whose child left its
// session.
func TestSSHStopDaemonized(t *testing.T) {
	h := newSSHHost(t)
	m := sshManager(t, h)
	marker := "3" + strconv.Itoa(int(time.Now().UnixNano()%100000))
	p := start(t, m, session.Spec{Command: "setsid sleep " + marker + " & echo started; sleep " + marker, TTY: true, Host: "box"})
	alive := func() bool { return exec.Command("pgrep", "-u", h.user, "-f", "sleep "+marker).Run() == nil }
	poll.Until(t, 10*time.Second, "the daemon running", alive)
	if _, err := p.Stop(t.Context(), 15, 2*time.Second, session.EndedByStop); err != nil {
		t.Fatal(err)
	}
	poll.Until(t, 10*time.Second, "the daemon gone", func() bool { return !alive() })
}

// TestSSHDropped: killing ssh drops the connection; the server reconnects
// and the process's output comes through whole.
func TestSSHDropped(t *testing.T) {
	h := newSSHHost(t)
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
