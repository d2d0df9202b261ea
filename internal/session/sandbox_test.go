package session

import (
	"errors"
	"strings"
	"testing"

	"github.com/yieldshell/yieldshell/internal/policy"
	"github.com/yieldshell/yieldshell/internal/sandbox"
)

// Issue 40 item 5: a mode the kernel cannot enforce is refused, naming
// what is missing, unless best-effort; a host list waits for the proxy.
func TestCheckSandbox(t *testing.T) {
	full := sandbox.Support{LandlockABI: 7, Seccomp: true}
	for _, c := range []struct {
		sb      policy.Sandbox
		s       sandbox.Support
		wantErr string
	}{
		{policy.Sandbox{Mode: policy.SandboxOff}, sandbox.Support{}, ""},
		{policy.Sandbox{Mode: policy.SandboxWorkspaceWrite}, full, ""},
		{policy.Sandbox{Mode: policy.SandboxWorkspaceWrite}, sandbox.Support{}, "lacks seccomp filters with user notification"},
		{policy.Sandbox{Mode: policy.SandboxReadOnly}, sandbox.Support{LandlockABI: 5, Seccomp: true}, "Landlock ABI 6"},
		{policy.Sandbox{Mode: policy.SandboxBestEffort}, sandbox.Support{}, ""},
		{policy.Sandbox{Mode: policy.SandboxWorkspaceWrite}, sandbox.Support{Seatbelt: true}, ""},
		{policy.Sandbox{Mode: policy.SandboxWorkspaceWrite, Network: policy.NetworkHosts, Hosts: []string{"a.com"}}, full, "host lists need the proxy"},
	} {
		err := checkSandbox(&policy.Config{Sandbox: c.sb}, c.s)
		switch {
		case c.wantErr == "" && err != nil:
			t.Errorf("%+v on %+v: %v", c.sb, c.s, err)
		case c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)):
			t.Errorf("%+v on %+v: error %v, want %q", c.sb, c.s, err, c.wantErr)
		}
	}
	// Even with the sandbox off: a call may tighten it, and would then
	// have run with the network on.
	if err := checkSandbox(&policy.Config{Sandbox: policy.Sandbox{Mode: policy.SandboxOff, Network: policy.NetworkHosts}}, full); !errors.Is(err, ErrHostsNeedProxy) {
		t.Errorf("host list with the sandbox off: %v", err)
	}
}
