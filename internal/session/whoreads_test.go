//go:build unix

package session

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

func TestDescribeReader(t *testing.T) {
	if _, err := os.Stat("/proc/self/exe"); err != nil {
		t.Skip("no /proc")
	}
	// This test binary, built in a temporary directory: not installed.
	if r := describeReader(os.Getpid()); r.Pid != os.Getpid() || !strings.Contains(r.Warning, "not a program installed") {
		t.Errorf("the test binary: %+v", r)
	}
	for _, c := range []struct{ prog, code, want string }{
		{"bash", "sleep 30; :", "is a shell (bash)"},
		{"python3", "import time; time.sleep(30)", "script run by python3"},
	} {
		path, err := exec.LookPath(c.prog)
		if err != nil {
			continue
		}
		cmd := exec.Command(path, "-c", c.code)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		// Until it runs the program (a shim may exec through env and bash).
		var r Reader
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			if r = describeReader(cmd.Process.Pid); strings.Contains(r.Warning, c.want) {
				break
			}
		}
		if !strings.Contains(r.Warning, c.want) {
			t.Errorf("%s: %+v", c.prog, r)
		}
	}
	if r := describeReader(1 << 30); r.Warning == "" {
		t.Errorf("a process that does not exist: %+v", r)
	}
}
