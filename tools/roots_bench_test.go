package tools

import (
	"io"
	"log/slog"
	"net/url"
	"path/filepath"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yieldshell/yieldshell/internal/policy"
	"github.com/yieldshell/yieldshell/internal/roots"
	"github.com/yieldshell/yieldshell/internal/toolhost"
)

// BenchmarkExecRoots measures what the client's roots add to an exec
// (looking up the session's roots, the configuration they put in force,
// the containment check), next to the same exec on a server whose
// operator set the default cwd, where roots are not consulted. (The
// variants cannot take turns within one run: each Manager reaps every
// child of this process, so two at once take each other's exits.)
func BenchmarkExecRoots(b *testing.B) {
	dir, err := filepath.EvalSymlinks(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		env  map[string]string
		args map[string]any
	}{
		{"baseline_explicit_default", map[string]string{"YIELDSHELL_DEFAULT_CWD": dir}, nil},
		{"roots_default_cwd", nil, nil},
		{"roots_confined", map[string]string{"YIELDSHELL_ALLOWED_CWDS": "roots"}, map[string]any{"cwd": dir}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			cfg, err := policy.Load(func(k string) string { return tc.env[k] }, b.TempDir())
			if err != nil {
				b.Fatal(err)
			}
			m, err := newManager(cfg)
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { m.Shutdown(b.Context()) })
			rt := roots.New(slog.New(slog.NewTextHandler(io.Discard, nil)))
			b.Cleanup(rt.Close)
			srv := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "0"}, &mcp.ServerOptions{
				InitializedHandler: rt.Initialized, RootsListChangedHandler: rt.ListChanged})
			register(srv, toolhost.Host{Manager: m, Config: cfg, Version: "test", Roots: rt})
			st, ct := mcp.NewInMemoryTransports()
			ss, err := srv.Connect(b.Context(), st, nil)
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { _ = ss.Close() })
			c := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "0"}, nil)
			c.AddRoots(&mcp.Root{URI: (&url.URL{Scheme: "file", Path: dir}).String()})
			cs, err := c.Connect(b.Context(), ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { _ = cs.Close() })
			args := map[string]any{"command": "true", "side_effects": []string{"NONE"}, "tty": false}
			for k, v := range tc.args {
				args[k] = v
			}
			for b.Loop() {
				res, err := cs.CallTool(b.Context(), &mcp.CallToolParams{Name: "exec", Arguments: args})
				if err != nil || res.IsError {
					b.Fatal(err, res)
				}
			}
		})
	}
}
