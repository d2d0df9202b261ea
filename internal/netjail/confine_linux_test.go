package netjail

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/yieldshell/yieldshell/internal/sandbox"
)

// TestJailConfinesTheCommand: with Confine, the helper applies the
// command's Landlock ruleset, no_new_privs and seccomp filter to the
// thread that execs it, after the network is set up, and the server's
// Monitor names what the kernel refused: the command writes its root and
// nothing else, cannot make namespaces of its own, and still reaches a
// listed host through the proxy.
func TestJailConfinesTheCommand(t *testing.T) {
	if gaps := sandbox.Probe().Gaps(); len(gaps) > 0 {
		t.Skipf("this kernel cannot confine: %v", gaps)
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("sh is not installed")
	}
	w := newWorld(t)
	root, outside := t.TempDir(), t.TempDir()
	for _, d := range []string{root, outside} {
		os.Chmod(d, 0o777) // the throwaway user's run (TestJailAsUser) writes here too
	}
	exe, _ := os.Executable()
	script := `echo ok > "$1/in"; echo pwn > "$2/x"; unshare -n true && echo UNSHARED; "$3" __probe "$4"; echo done`
	probe := "http:http://listed.test:" + strconv.Itoa(w.upstream) + "/"
	p := &sandbox.Policy{Mode: sandbox.ModeWorkspaceWrite, Network: sandbox.NetworkHosts, Writable: []string{root}}
	out, _, denied := w.runConfined(t, p, sh, "sh", "-c", script, "sh", root, outside, exe, probe)
	if !strings.Contains(out, probe+" ok hello from upstream") || strings.Contains(out, "UNSHARED") || !strings.HasSuffix(out, "done\n") {
		t.Errorf("output %q: want the listed host reached, no namespace made", out)
	}
	if _, err := os.Stat(filepath.Join(root, "in")); err != nil {
		t.Errorf("the root was not written: %v", err)
	}
	if _, err := os.Stat(filepath.Join(outside, "x")); err == nil {
		t.Error("a file outside the root was written")
	}
	var named []string
	for _, d := range denied {
		named = append(named, strings.TrimSpace(d.Op+" "+d.Path))
	}
	for _, want := range []string{"open " + filepath.Join(outside, "x"), "unshare"} {
		if !slices.Contains(named, want) {
			t.Errorf("denied %q, want %q among them", named, want)
		}
	}
}
