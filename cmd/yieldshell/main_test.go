package main

import (
	"log/slog"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yieldshell/yieldshell/internal/app"
	"github.com/yieldshell/yieldshell/internal/policy"
)

func TestEnvBool(t *testing.T) {
	for v, want := range map[string]bool{"": false, "0": false, "off": false, "1": true, "TRUE": true, " yes ": true, "on": true} {
		got, err := envBool(persistEnv, func(string) string { return v })
		if err != nil || got != want {
			t.Errorf("envBool(%q) = %v, %v; want %v", v, got, err, want)
		}
	}
	if _, err := envBool(persistEnv, func(string) string { return "maybe" }); err == nil || !strings.Contains(err.Error(), persistEnv) {
		t.Errorf("envBool(maybe): %v, want an error naming %s", err, persistEnv)
	}
}

// TestInstructionsPerToolset: the instructions initialize answers with
// name only tools the toolset lists, and name them: an agent that follows
// them never calls a tool that is not there.
func TestInstructionsPerToolset(t *testing.T) {
	listed := map[string][]string{}
	said := map[string]string{}
	for _, toolset := range []string{policy.ToolsetDefault, policy.ToolsetShellYeah, policy.ToolsetAll} {
		cfg, err := policy.Load(func(k string) string { return map[string]string{"YIELDSHELL_TOOLSET": toolset}[k] }, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		a, err := app.New(cfg, app.Loggers{Stderr: slog.DiscardHandler, SDK: slog.New(slog.DiscardHandler)}, app.OneCall, "test")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(a.Shutdown)
		st, ct := mcp.NewInMemoryTransports()
		ss, err := a.Server.Connect(t.Context(), st, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ss.Close() })
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, nil).
			Connect(t.Context(), ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		for tool, err := range cs.Tools(t.Context(), nil) {
			if err != nil {
				t.Fatal(err)
			}
			listed[toolset] = append(listed[toolset], tool.Name)
		}
		said[toolset] = cs.InitializeResult().Instructions
	}
	word := regexp.MustCompile(`[a-z_]+`)
	for toolset, text := range said {
		var mentioned []string
		for _, w := range word.FindAllString(text, -1) {
			if slices.Contains(listed[policy.ToolsetAll], w) && !slices.Contains(mentioned, w) {
				mentioned = append(mentioned, w)
			}
		}
		for _, m := range mentioned {
			if !slices.Contains(listed[toolset], m) {
				t.Errorf("toolset %s: the instructions name %s, which it does not list (%v)", toolset, m, listed[toolset])
			}
		}
		// Every tool that acts on processes is named (ps, cleanup,
		// health_check, get_all_loglines may go unnamed in a short text).
		for _, tool := range listed[toolset] {
			if !slices.Contains(mentioned, tool) && !slices.Contains([]string{"health_check", "get_all_loglines", "cleanup", "ps"}, tool) {
				t.Errorf("toolset %s: the instructions do not name %s", toolset, tool)
			}
		}
	}
}
