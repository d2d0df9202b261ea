package conformance

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestUnknownVariables: a YIELDSHELL_ variable that is no setting is
// warned about by name with the nearest one; one that looks like a
// security setting (here one letter short of YIELDSHELL_ALLOWED_CWDS)
// stops the server from starting, instead of leaving it unconfined
// (issue 41 item 5). The CLI for a person only warns.
func TestUnknownVariables(t *testing.T) {
	run := func(env string, args ...string) (int, string) {
		cmd := newCmd(t, args...)
		cmd.Env = append(os.Environ(), env)
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := errors.AsType[*exec.ExitError](err); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return code, string(out)
	}
	code, out := run("YIELDSHELL_ALLOWED_CWD=/tmp", "tools")
	if code != 2 || !strings.Contains(out, "YIELDSHELL_ALLOWED_CWD is not a yieldshell setting") ||
		!strings.Contains(out, "did you mean YIELDSHELL_ALLOWED_CWDS?") || !strings.Contains(out, "not starting") {
		t.Errorf("YIELDSHELL_ALLOWED_CWD: exit %d\n%s", code, out)
	}
	code, out = run("YIELDSHELL_MAX_OUTPUT_BYTE=10", "tools")
	if code != 0 || !strings.Contains(out, "warning: YIELDSHELL_MAX_OUTPUT_BYTE is not a yieldshell setting and is ignored; did you mean YIELDSHELL_MAX_OUTPUT_BYTES?") {
		t.Errorf("YIELDSHELL_MAX_OUTPUT_BYTE: exit %d\n%s", code, out)
	}
	if code, out = run("YIELDSHELL_MAX_OUTPUT_BYTES=10", "tools"); code != 0 || strings.Contains(out, "warning") {
		t.Errorf("a known variable: exit %d\n%s", code, out)
	}
}
