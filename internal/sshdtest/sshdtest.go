// Package sshdtest starts a real sshd on 127.0.0.1 for a test, with a
// throwaway user that logs in with a generated key, and the ssh command
// that reaches it: the remote-host tests of package remote and of the
// conformance suite use it. It needs root (sshd and useradd), and skips
// without it, without the programs, and in -short.
package sshdtest

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
	"testing"
	"time"

	"github.com/yieldshell/yieldshell/internal/poll"
)

// Host is a real sshd on 127.0.0.1 that lets a throwaway user in with
// a generated key, and the ssh command that reaches it as host "box".
type Host struct {
	User, Home string   // the throwaway user and its home
	SSH        []string // ssh -F CONFIG: "box" is this host as User
	dir        string
}

// Protect gives the user's key a passphrase: ssh asks for it on its
// terminal.
func (h *Host) Protect(t testing.TB, passphrase string) {
	t.Helper()
	runCmd(t, "ssh-keygen", "-q", "-p", "-P", "", "-N", passphrase, "-f", filepath.Join(h.dir, "id"))
}

// sshd needs its absolute path.
const sshd = "/usr/sbin/sshd"

// Start starts sshd and creates its user; both go at cleanup, after
// every process of the user ended.
func Start(t testing.TB) *Host {
	t.Helper()
	skipUnlessAble(t)
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	h := &Host{User: "ysr" + randHex(4), dir: dir}
	// "*": no password, but not locked (sshd refuses a locked account).
	runCmd(t, "useradd", "-m", "-s", "/bin/bash", "-p", "*", h.User)
	t.Cleanup(func() { h.remove(t) })
	u, err := user.Lookup(h.User)
	if err != nil {
		t.Fatal(err)
	}
	h.Home = u.HomeDir
	runCmd(t, "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", filepath.Join(dir, "hostkey"))
	runCmd(t, "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", filepath.Join(dir, "id"))
	pub, err := os.ReadFile(filepath.Join(dir, "id.pub"))
	if err != nil {
		t.Fatal(err)
	}
	ssh := filepath.Join(h.Home, ".ssh")
	writeOwned(t, u, ssh, "", 0o700)
	writeOwned(t, u, filepath.Join(ssh, "authorized_keys"), string(pub), 0o600)
	h.configure(t, freePort(t))
	startSSHD(t, dir)
	return h
}

// skipUnlessAble skips t in -short, without root or without the programs.
func skipUnlessAble(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts sshd: not in -short")
	}
	for _, p := range []string{sshd, "ssh", "ssh-keygen", "useradd", "userdel", "pgrep"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Skipf("needs %s", p)
		}
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root: sshd and useradd")
	}
}

// configure writes sshd's and ssh's configurations.
func (h *Host) configure(t testing.TB, port int) {
	t.Helper()
	dir := h.dir
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
`, port, dir, dir, h.User))
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
`, port, h.User, dir, dir))
	h.SSH = []string{"ssh", "-F", filepath.Join(dir, "ssh_config")}
}

// startSSHD runs sshd until t ends.
func startSSHD(t testing.TB, dir string) {
	t.Helper()
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
}

// remove waits for the user's processes to end (the executor ends once
// its server went and it keeps nothing), then deletes the user.
func (h *Host) remove(t testing.TB) {
	gone := poll.Within(20*time.Second, func() bool {
		return exec.Command("pgrep", "-u", h.User).Run() != nil
	})
	if !gone {
		out, _ := exec.Command("pgrep", "-a", "-u", h.User).Output()
		t.Errorf("processes of %s left behind: %s", h.User, out)
	}
	if out, err := exec.Command("userdel", "-r", "-f", h.User).CombinedOutput(); err != nil {
		t.Errorf("userdel: %v: %s", err, out)
	}
}

func randHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func runCmd(t testing.TB, name string, args ...string) {
	t.Helper()
	if out, err := exec.Command(name, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v: %s", name, err, out)
	}
}

func writeFile(t testing.TB, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// writeOwned makes a directory (content "") or a file owned by u.
func writeOwned(t testing.TB, u *user.User, path, content string, mode os.FileMode) {
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

func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
