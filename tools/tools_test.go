package tools

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yieldshell/yieldshell/internal/policy"
	"github.com/yieldshell/yieldshell/internal/session"
	"github.com/yieldshell/yieldshell/internal/toolhost"
)

// newManager returns a Manager that runs commands on this machine.
func newManager(cfg *policy.Config) (*session.Manager, error) {
	o, err := session.LocalOptions(nil)
	if err != nil {
		return nil, err
	}
	return session.NewManager(cfg, o)
}

var update = flag.Bool("update", false, "rewrite the golden files in testdata/tools")

// TestToolGoldens pins each tool's name, description, annotations and
// schemas: a change to the tool surface shows up as a diff to review.
// Refresh with go test ./tools -run TestToolGoldens -update, which also
// regenerates the tools reference in docs/tools.md from them.
func TestToolGoldens(t *testing.T) {
	res := listTools(t, policy.ToolsetAll)
	for _, tool := range res.Tools {
		a := tool.Annotations
		if a == nil || a.DestructiveHint == nil || a.OpenWorldHint == nil || a.Title == "" {
			t.Errorf("%s: every annotation must be set explicitly: %+v", tool.Name, a)
		}
		if tool.OutputSchema == nil {
			t.Errorf("%s: no output schema", tool.Name)
		}
		got, err := json.MarshalIndent(tool, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, '\n')
		path := filepath.Join("testdata", "tools", tool.Name+".json")
		if *update {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		golden, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run with -update to create it)", err)
		}
		if string(golden) != string(got) {
			t.Errorf("%s differs from %s; if the change is intended, run with -update\ngot:\n%s", tool.Name, path, got)
		}
	}
	checkToolsReference(t)
}

// The toolsets: the SDK lists tools sorted by name.
var (
	defaultTools   = []string{"ask_human", "cleanup", "exec", "ps", "read", "restart", "stop", "wait", "write"}
	shellYeahTools = []string{"ask_human", "check_shell", "get_all_loglines", "health_check", "list_shells", "restart_shell", "send_input",
		"start_shell", "start_shell_with_verification", "stop_all_shells", "stop_shell", "wait_for_shell"}
)

func TestToolsets(t *testing.T) {
	for toolset, want := range map[string][]string{
		policy.ToolsetDefault:   defaultTools,
		policy.ToolsetShellYeah: shellYeahTools,
		policy.ToolsetAll:       slices.Compact(slices.Sorted(slices.Values(slices.Concat(defaultTools, shellYeahTools)))),
	} {
		var names []string
		for _, tool := range listTools(t, toolset).Tools {
			names = append(names, tool.Name)
		}
		if !slices.Equal(names, want) {
			t.Errorf("%s: tools = %v, want %v", toolset, names, want)
		}
	}
}

// listTools lists the tools of a server with the given toolset.
func listTools(t *testing.T, toolset string) *mcp.ListToolsResult {
	cfg, err := policy.Load(func(k string) string {
		if k == "YIELDSHELL_TOOLSET" {
			return toolset
		}
		return ""
	}, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "0"}, nil)
	m, err := newManager(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Shutdown(context.Background()) })
	register(srv, toolhost.Host{Manager: m, Config: cfg, Version: "test"})
	res, err := connect(t, srv).ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func connect(t testing.TB, srv *mcp.Server) *mcp.ClientSession {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil).
		Connect(t.Context(), ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}
