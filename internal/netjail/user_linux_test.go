package netjail

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/yieldshell/yieldshell/internal/testuser"
)

// TestJailAsUser runs the jail tests again as an ordinary user, which
// this test creates and removes: the namespaces come from an unprivileged
// user namespace then, and the command must end up with no capabilities.
func TestJailAsUser(t *testing.T) {
	if os.Getenv("YIELDSHELL_NETJAIL_AS_USER") != "" {
		t.Skip("already the throwaway user")
	}
	uid, gid := testuser.New(t)
	bin := testuser.CopyTestBinary(t)
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
