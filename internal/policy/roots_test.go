package policy

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/yieldshell/yieldshell/internal/testdir"
)

// TestLoadRootsKeyword: "roots" in YIELDSHELL_ALLOWED_CWDS stands alone.
func TestLoadRootsKeyword(t *testing.T) {
	dir := tempDir(t)
	sep := string(os.PathListSeparator)
	for _, v := range []string{"roots", " roots ", sep + "roots" + sep} {
		c := mustLoad(t, map[string]string{envAllowedCwds: v}, dir)
		if !c.Cwd.FromRoots || c.Cwd.Allowed != nil || c.Cwd.ExplicitDefault {
			t.Errorf("%q: CwdsFromRoots %v, AllowedCwds %q, ExplicitDefaultCwd %v", v, c.Cwd.FromRoots, c.Cwd.Allowed, c.Cwd.ExplicitDefault)
		}
	}
	for _, v := range []string{"roots" + sep + dir, dir + sep + "roots"} {
		if _, err := Load(envOf(map[string]string{envAllowedCwds: v}), dir); err == nil {
			t.Errorf("%q: loaded; want an error saying roots stands alone", v)
		} else {
			checkMessage(t, err.Error(), []string{"must stand alone"}, nil)
		}
	}
	// "Roots" or "roots/" are paths, as before: relative to the server's cwd.
	if err := os.Mkdir(filepath.Join(dir, "Roots"), 0o755); err != nil {
		t.Fatal(err)
	}
	if c := mustLoad(t, map[string]string{envAllowedCwds: "Roots"}, dir); c.Cwd.FromRoots || len(c.Cwd.Allowed) != 1 {
		t.Errorf("Roots: CwdsFromRoots %v, AllowedCwds %q; want the directory", c.Cwd.FromRoots, c.Cwd.Allowed)
	}
	if c := mustLoad(t, map[string]string{envDefaultCwd: dir}, dir); !c.Cwd.ExplicitDefault {
		t.Error("an explicit default cwd is not marked so")
	}
}

// TestWithRoots is the policy decision: which default cwd and which roots a
// client's roots put in force, and what ResolveCwd then admits.
func TestWithRoots(t *testing.T) {
	base := tempDir(t)
	mk := func(parts ...string) string {
		p := filepath.Join(append([]string{base}, parts...)...)
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	server := mk("server")
	proj := mk("proj")
	sub := mk("proj", "sub")
	other := mk("other")
	outside := mk("outside")
	opDir := mk("op")
	testdir.Symlink(t, outside, filepath.Join(proj, "escape"))
	sep := string(os.PathListSeparator)

	load := func(m map[string]string) *Config { return mustLoad(t, m, server) }
	plain := load(nil)
	confined := load(map[string]string{envAllowedCwds: "roots"})
	confinedOpDefault := load(map[string]string{envAllowedCwds: "roots", envDefaultCwd: opDir})
	opDefault := load(map[string]string{envDefaultCwd: opDir})
	opAllowed := load(map[string]string{envAllowedCwds: other + sep + opDir})

	two := &Roots{Paths: []string{proj, other}}
	none := &Roots{Missing: "the client declared no roots capability"}
	tests := []struct {
		name        string
		c           *Config
		r           *Roots
		cwd         string
		want        string   // resolved cwd; "" = refused
		msg         []string // in the refusal
		defaultFrom string
		allowedFrom string
	}{
		{"no roots, no settings: server cwd", plain, nil, "", server, nil, FromServerCwd, FromNone},
		{"first root is the default", plain, two, "", proj, nil, FromClient, FromNone},
		{"relative cwd against the first root", plain, two, "sub", sub, nil, FromClient, FromNone},
		{"roots do not confine by themselves", plain, two, outside, outside, nil, FromClient, FromNone},
		{"a client without roots: server cwd", plain, none, "", server, nil, FromServerCwd, FromNone},
		{"explicit default wins", opDefault, two, "", opDir, nil, FromOperator, FromNone},
		{"explicit paths win over roots", opAllowed, two, proj, "", []string{"not under allowed roots (YIELDSHELL_ALLOWED_CWDS)"}, FromClient, FromOperator},
		{"default is the first root inside the operator's paths", opAllowed, two, "", other, nil, FromClient, FromOperator},
		{"no root inside the operator's paths: server cwd", opAllowed, &Roots{Paths: []string{proj}}, "", "", []string{"not under allowed roots"}, FromServerCwd, FromOperator},
		{"confined: inside a root", confined, two, sub, sub, nil, FromClient, FromClient},
		{"confined: the second root", confined, two, other, other, nil, FromClient, FromClient},
		{"confined: default is the first root", confined, two, "", proj, nil, FromClient, FromClient},
		{"confined: outside", confined, two, outside, "", []string{"not under the client's roots", proj, other}, FromClient, FromClient},
		{"confined: dot-dot out of a root", confined, two, "..", "", []string{"not under the client's roots"}, FromClient, FromClient},
		{"confined: a symlink in a root pointing outside", confined, two, filepath.Join(proj, "escape"), "", []string{"not under the client's roots", "resolved to"}, FromClient, FromClient},
		{"confined: client declared no roots", confined, none, proj, "", []string{"no directory is allowed", "declared no roots capability", "YIELDSHELL_ALLOWED_CWDS=roots"}, FromServerCwd, FromClient},
		{"confined: client answered none", confined, &Roots{}, "", "", []string{"no directory is allowed", "named no roots"}, FromServerCwd, FromClient},
		{"confined: a connection without roots", confined, nil, "", "", []string{"cannot tell the server its roots"}, FromServerCwd, FromClient},
		{"confined, explicit default: default outside the roots", confinedOpDefault, two, "", "", []string{"not under the client's roots"}, FromOperator, FromClient},
		{"confined, explicit default: relative cwd against it", confinedOpDefault, &Roots{Paths: []string{opDir}}, ".", opDir, nil, FromOperator, FromClient},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := tt.c.WithRoots(tt.r)
			got, err := c.ResolveCwd(tt.cwd)
			if tt.want != "" {
				if err != nil || got != tt.want {
					t.Fatalf("ResolveCwd(%q) = %q, %v; want %q", tt.cwd, got, err, tt.want)
				}
			} else {
				r, ok := errors.AsType[*Refusal](err)
				if !ok || r.Rule != "cwd" || !r.Askable {
					t.Fatalf("ResolveCwd(%q) = %q, %#v; want an askable cwd refusal", tt.cwd, got, err)
				}
				checkMessage(t, r.Message, append([]string{"Nothing was started"}, tt.msg...), nil)
			}
			if d, a := c.CwdSources(); d != tt.defaultFrom || a != tt.allowedFrom {
				t.Errorf("CwdSources() = %s, %s; want %s, %s", d, a, tt.defaultFrom, tt.allowedFrom)
			}
		})
	}
}

// TestRootsFailClosed: a configuration confined to roots that never went
// through WithRoots admits nothing, and waiving cwd admits anything.
func TestRootsFailClosed(t *testing.T) {
	dir := tempDir(t)
	c := mustLoad(t, map[string]string{envAllowedCwds: "roots"}, dir)
	if _, err := c.ResolveCwd(dir); err == nil {
		t.Fatal("confined to roots, never applied: admitted a cwd")
	} else {
		checkMessage(t, err.Error(), []string{"roots are not known"}, nil)
	}
	w := c.WithRoots(&Roots{Missing: "no roots"}).Waive("cwd")
	if got, err := w.ResolveCwd(dir); err != nil || got != dir {
		t.Errorf("waived: ResolveCwd = %q, %v", got, err)
	}
	if !c.UsesRoots() || mustLoad(t, map[string]string{envDefaultCwd: dir}, dir).UsesRoots() {
		t.Error("UsesRoots: wrong")
	}
	explicit := mustLoad(t, map[string]string{envDefaultCwd: dir, envAllowedCwds: dir}, dir)
	if explicit.WithRoots(&Roots{Paths: []string{"/"}}) != explicit {
		t.Error("roots changed a configuration whose operator chose both")
	}
	if got := c.WithRoots(&Roots{Paths: []string{dir}}); !slices.Equal(got.Cwd.Allowed, []string{dir}) || c.Cwd.Allowed != nil {
		t.Errorf("WithRoots: copy %q, original %q", got.Cwd.Allowed, c.Cwd.Allowed)
	}
}

// TestNeedsRoots: a call needs the client's roots when they confine it, or
// when its cwd is the default or relative to it and the operator chose no
// default.
func TestNeedsRoots(t *testing.T) {
	dir := tempDir(t)
	abs := filepath.Join(dir, "x")
	plain := mustLoad(t, nil, dir)
	confined := mustLoad(t, map[string]string{envAllowedCwds: "roots", envDefaultCwd: dir}, dir)
	explicit := mustLoad(t, map[string]string{envDefaultCwd: dir}, dir)
	for _, tt := range []struct {
		c    *Config
		cwd  string
		want bool
	}{
		{plain, "", true}, {plain, "sub", true}, {plain, abs, false},
		{confined, "", true}, {confined, abs, true},
		{explicit, "", false}, {explicit, "sub", false}, {explicit, abs, false},
	} {
		if got := tt.c.NeedsRoots(tt.cwd); got != tt.want {
			t.Errorf("NeedsRoots(%q) with default %v, confined %v = %v", tt.cwd, tt.c.Cwd.ExplicitDefault, tt.c.Cwd.FromRoots, got)
		}
	}
}

// BenchmarkResolveCwdRoots is the policy decision alone: ResolveCwd on the
// operator's configuration, and on the one a client's roots put in force
// (WithRoots, then ResolveCwd).
func BenchmarkResolveCwdRoots(b *testing.B) {
	dir := tempDir(b)
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		b.Fatal(err)
	}
	load := func(m map[string]string) *Config {
		c, err := Load(envOf(m), dir)
		if err != nil {
			b.Fatal(err)
		}
		return c
	}
	r := &Roots{Paths: []string{filepath.Join(dir, "other"), dir}}
	for _, tc := range []struct {
		name  string
		c     *Config
		roots bool
	}{
		{"baseline_operator_paths", load(map[string]string{envAllowedCwds: dir}), false},
		{"client_roots", load(map[string]string{envAllowedCwds: "roots"}), true},
	} {
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				c := tc.c
				if tc.roots {
					c = c.WithRoots(r)
				}
				if _, err := c.ResolveCwd(sub); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
