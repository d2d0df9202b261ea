package session

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/yieldshell/yieldshell/internal/policy"
	"github.com/yieldshell/yieldshell/internal/sandbox"
	"github.com/yieldshell/yieldshell/internal/testdir"
)

// Issue 40 item 5: a mode the kernel cannot enforce is refused, naming
// what is missing, unless best-effort.
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
	} {
		err := checkSandbox(&policy.Config{Sandbox: c.sb}, c.s)
		switch {
		case c.wantErr == "" && err != nil:
			t.Errorf("%+v on %+v: %v", c.sb, c.s, err)
		case c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)):
			t.Errorf("%+v on %+v: error %v, want %q", c.sb, c.s, err, c.wantErr)
		}
	}
}

// Issue 40 items 2 and 5: a host list is parsed and its jail checked at
// start; where the jail does not work the server refuses to start, naming
// what is missing, unless best-effort, which runs with the network off and
// says so. Even with the sandbox off (a call may tighten it).
func TestCheckHostList(t *testing.T) {
	works := func(string) error { return nil }
	fails := func(string) error { return errors.New("network sandbox: user namespaces are disabled") }
	hosts := func(mode string, h ...string) policy.Sandbox {
		return policy.Sandbox{Mode: mode, Network: policy.NetworkHosts, Hosts: h}
	}
	for _, c := range []struct {
		sb               policy.Sandbox
		helper           string
		check            func(string) error
		wantErr, wantGap string
	}{
		{policy.Sandbox{Mode: policy.SandboxWorkspaceWrite, Network: policy.NetworkOn}, "ys", fails, "", ""},
		{hosts(policy.SandboxWorkspaceWrite, "example.com", "127.0.0.2:8080"), "ys", works, "", ""},
		{hosts(policy.SandboxOff, "example.com"), "ys", fails, "user namespaces are disabled", ""},
		{hosts(policy.SandboxWorkspaceWrite, "example.com"), "ys", fails, "user namespaces are disabled (YIELDSHELL_SANDBOX=best-effort", ""},
		{hosts(policy.SandboxWorkspaceWrite, "example.com"), "", works, "no helper binary", ""},
		{hosts(policy.SandboxBestEffort, "example.com"), "ys", fails, "", "user namespaces are disabled): the network is off"},
		{hosts(policy.SandboxWorkspaceWrite, "*.com"), "ys", works, `entry "*.com"`, ""},
	} {
		h, err := checkHostList(c.sb, c.helper, c.check)
		switch {
		case c.wantErr == "" && err != nil:
			t.Errorf("%+v: %v", c.sb, err)
		case c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)):
			t.Errorf("%+v: error %v, want %q", c.sb, err, c.wantErr)
		case err == nil && c.sb.Network == policy.NetworkHosts && (h == nil || !strings.Contains(h.gap, c.wantGap) || (c.wantGap == "") != (h.gap == "")):
			t.Errorf("%+v: %+v, want gap %q", c.sb, h, c.wantGap)
		}
	}
}

// A sandboxed server does not run a command on another host, which its
// kernel cannot confine: the refusal says so, and nothing starts (no
// connection is made: the sandbox is decided before the host is reached).
func TestSandboxRefusesRemoteHost(t *testing.T) {
	cfg, err := policy.Load(func(k string) string { return map[string]string{"YIELDSHELL_SANDBOX": "best-effort"}[k] }, testdir.New(t))
	if err != nil {
		t.Fatal(err)
	}
	o, err := LocalOptions(nil)
	if err != nil {
		t.Fatal(err)
	}
	o.Hosts = unreachedHosts{t}
	m, err := NewManager(cfg, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Shutdown(context.Background()) })
	_, err = m.Start(t.Context(), Spec{Command: "echo hi", Host: "box.invalid", SideEffects: []string{"NONE"}})
	var r *policy.Refusal
	if !errors.As(err, &r) || r.Rule != "sandbox" || !strings.Contains(r.Message, "confines commands on this machine only") {
		t.Fatalf("Start: %v, want the sandbox's refusal", err)
	}
	if n := len(m.List()); n != 0 {
		t.Errorf("%d processes, want none", n)
	}
}

// unreachedHosts fails the test if a host is reached.
type unreachedHosts struct{ t *testing.T }

func (h unreachedHosts) Host(_ context.Context, host string, _ *Manager) (Engine, Prober, error) {
	h.t.Errorf("host %q reached", host)
	return nil, nil, errors.New("unreached")
}

func (unreachedHosts) Close() error { return nil }
