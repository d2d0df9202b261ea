package sandbox

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// confined runs script with bash under p and returns its output, exit
// code and denials.
func confined(t *testing.T, p *Policy, dir, script string, cred ...func(*exec.Cmd)) (string, int, []Denial) {
	t.Helper()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash not installed")
	}
	cmd := exec.Command(bash, "--norc", "--noprofile", "-c", script)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	for _, c := range cred {
		c(cmd)
	}
	m, err := Start(p, Probe(), "", cmd.Start)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { m.Close() })
	err = cmd.Wait()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), code, m.Denied()
}

func TestSmoke(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	p := &Policy{Mode: ModeWorkspaceWrite, Network: NetworkOff, Writable: []string{root}}
	out, code, den := confined(t, p, root, "echo hi > in.txt && cat in.txt; echo x > "+filepath.Join(outside, "f")+"; echo rc=$?")
	t.Logf("out=%q code=%d denied=%+v", out, code, den)
	if _, err := os.Stat(filepath.Join(outside, "f")); err == nil {
		t.Fatal("wrote outside")
	}
}
