package netjail

import (
	"crypto/rand"
	"encoding/hex"
	"io"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestJailAsUser runs the jail tests again as an ordinary user, which
// this test creates and removes: the namespaces come from an unprivileged
// user namespace then, and the command must end up with no capabilities.
func TestJailAsUser(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("creating a throwaway user needs root (the tests above ran as this user)")
	}
	if os.Getenv("YIELDSHELL_NETJAIL_AS_USER") != "" {
		t.Skip("already the throwaway user")
	}
	for _, tool := range []string{"useradd", "userdel"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed", tool)
		}
	}
	uid, gid := throwawayUser(t)
	bin := copyTestBinary(t)
	cmd := exec.Command(bin, "-test.run", "^(TestJailReachesOnlyThroughTheProxy|TestJailRealPrograms|TestJailedProcessStaysReadable|TestJailUnderATerminal|TestCheck|TestJailConfinesTheCommand)$", "-test.v")
	cmd.Dir = filepath.Dir(bin)
	cmd.Env = append(os.Environ(), "YIELDSHELL_NETJAIL_AS_USER=1", "HOME="+filepath.Dir(bin))
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uid, Gid: gid}, Pdeathsig: syscall.SIGKILL}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestJailReachesOnlyThroughTheProxy") {
		t.Fatalf("as uid %d: %v\n%s", uid, err, out)
	}
	t.Logf("as uid %d:\n%s", uid, out)
}

// throwawayUser creates a user with a random name and no home, removed
// when the test ends.
func throwawayUser(t *testing.T) (uint32, uint32) {
	b := make([]byte, 4)
	rand.Read(b)
	name := "ysnj" + hex.EncodeToString(b)
	if out, err := exec.Command("useradd", "--no-create-home", "--shell", "/usr/sbin/nologin", name).CombinedOutput(); err != nil {
		t.Skipf("useradd: %v: %s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("userdel", name).CombinedOutput(); err != nil {
			t.Errorf("userdel %s: %v: %s", name, err, out)
		}
	})
	u, err := user.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	uid, _ := strconv.ParseUint(u.Uid, 10, 32)
	gid, _ := strconv.ParseUint(u.Gid, 10, 32)
	return uint32(uid), uint32(gid)
}

// copyTestBinary copies this test binary where another user can run it
// (the build directory is root's alone).
func copyTestBinary(t *testing.T) string {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "netjail-user-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	src, err := os.Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	bin := filepath.Join(dir, "netjail.test")
	dst, err := os.OpenFile(bin, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
	return bin
}
