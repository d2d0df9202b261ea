package policy

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestLoadSandbox(t *testing.T) {
	// Paths as this platform writes them: a list with its separator,
	// absolute on its current drive (Windows).
	abs := func(p string) string { a, _ := filepath.Abs(p); return a }
	a := filepath.Join(abs("/"), "a") // /a; Z:\a
	list := a + string(filepath.ListSeparator) + " rel"
	for _, c := range []struct {
		env     map[string]string
		want    Sandbox
		wantErr string
	}{
		{env: nil, want: Sandbox{Mode: SandboxOff, Network: NetworkOff}},
		{env: map[string]string{envSandbox: "Workspace-Write"}, want: Sandbox{Mode: SandboxWorkspaceWrite, Network: NetworkOff}},
		{env: map[string]string{envSandbox: "read-only", envSandboxNetwork: "on"}, want: Sandbox{Mode: SandboxReadOnly, Network: NetworkOn}},
		{env: map[string]string{envSandbox: "best-effort", envSandboxWritable: list},
			want: Sandbox{Mode: SandboxBestEffort, Network: NetworkOff, Writable: []string{a, abs(filepath.Join("/base", "rel"))}}},
		{env: map[string]string{envSandboxNetwork: "Example.com, *.go.dev,proxy.golang.org:443"},
			want: Sandbox{Mode: SandboxOff, Network: NetworkHosts, Hosts: []string{"example.com", "*.go.dev", "proxy.golang.org:443"}}},
		{env: map[string]string{envSandbox: "strict"}, wantErr: `YIELDSHELL_SANDBOX="strict": want off, read-only, workspace-write or best-effort`},
		{env: map[string]string{envSandboxNetwork: "http://x/"}, wantErr: `host "http://x/"`},
		{env: map[string]string{envSandboxNetwork: "a.example 10.0.0.0/8,\t[fd00::/8]:443"},
			want: Sandbox{Mode: SandboxOff, Network: NetworkHosts, Hosts: []string{"a.example", "10.0.0.0/8", "[fd00::/8]:443"}}},
		{env: map[string]string{envSandboxNetwork: "user@x.example"}, wantErr: `host "user@x.example"`},
	} {
		l := &loader{getenv: func(k string) string { return c.env[k] }, base: "/base"}
		got := l.sandbox()
		err := l.err()
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("%v: error %v, want %q", c.env, err, c.wantErr)
			}
			continue
		}
		if err != nil || got.Mode != c.want.Mode || got.Network != c.want.Network ||
			!slices.Equal(got.Writable, c.want.Writable) || !slices.Equal(got.Hosts, c.want.Hosts) {
			t.Errorf("%v: got %+v, %v; want %+v", c.env, got, err, c.want)
		}
	}
}

func TestSandboxTighten(t *testing.T) {
	for _, c := range []struct{ server, asked, want string }{
		{SandboxOff, "", SandboxOff},
		{SandboxOff, SandboxWorkspaceWrite, SandboxWorkspaceWrite},
		{SandboxOff, SandboxReadOnly, SandboxReadOnly},
		{SandboxWorkspaceWrite, SandboxReadOnly, SandboxReadOnly},
		{SandboxBestEffort, SandboxWorkspaceWrite, SandboxBestEffort},
		{SandboxWorkspaceWrite, SandboxOff, "refused"},
		{SandboxReadOnly, SandboxWorkspaceWrite, "refused"},
		{SandboxOff, SandboxBestEffort, "refused"},
		{SandboxOff, "none", "refused"},
	} {
		got, err := Sandbox{Mode: c.server}.Tighten(c.asked)
		if err != nil {
			got = "refused"
			if r, ok := err.(*Refusal); !ok || r.Rule != "sandbox" {
				t.Errorf("%s tightened by %s: error %v is not a sandbox refusal", c.server, c.asked, err)
			}
		}
		if got != c.want {
			t.Errorf("%s tightened by %q = %q, want %q", c.server, c.asked, got, c.want)
		}
	}
}
