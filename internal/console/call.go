package console

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// InProcess is the call and tools commands: a client of a server in this
// process.
type InProcess struct {
	Server         *mcp.Server
	Version        string // the client's, as the server's
	Stdout, Stderr io.Writer
}

// connect opens a client session to the server through in-memory
// transports: the same MCP path a real client takes (validation, schemas,
// structured content), without a child process.
func (p *InProcess) connect(ctx context.Context) (*mcp.ClientSession, func(), error) {
	st, ct := mcp.NewInMemoryTransports()
	ss, err := p.Server.Connect(ctx, st, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("connecting in process: %w", err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "yieldshell-cli", Version: p.Version}, nil).
		Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
	if err != nil {
		_ = ss.Close()
		return nil, nil, fmt.Errorf("connecting in process: %w", err)
	}
	return cs, func() { _ = cs.Close(); _ = ss.Close() }, nil
}

// Call is `yieldshell call TOOL [JSON]`: one tool call, its answer on
// stdout. Exit status: 0 for an answer, 1 for a tool error (isError), 2 for
// a call that could not be made (usage, bad JSON, unknown tool).
func (p *InProcess) Call(ctx context.Context, args []string) int {
	stdout, stderr := p.Stdout, p.Stderr
	if len(args) < 1 || len(args) > 2 {
		fmt.Fprintln(stderr, "usage: yieldshell call TOOL ['{\"arg\": value, ...}']   (yieldshell tools lists them)")
		return 2
	}
	params := &mcp.CallToolParams{Name: args[0], Arguments: map[string]any{}}
	if len(args) == 2 && strings.TrimSpace(args[1]) != "" {
		var a map[string]any
		if err := json.Unmarshal([]byte(args[1]), &a); err != nil {
			fmt.Fprintf(stderr, "yieldshell: the arguments of %s must be a JSON object: %v\n", args[0], err)
			return 2
		}
		params.Arguments = a
	}
	cs, closeSession, err := p.connect(ctx)
	if err != nil {
		fmt.Fprintln(stderr, "yieldshell:", err)
		return 2
	}
	defer closeSession()
	res, err := cs.CallTool(ctx, params)
	if err != nil {
		fmt.Fprintf(stderr, "yieldshell: calling %s: %v\n", args[0], err)
		return 2
	}
	if res.StructuredContent != nil {
		if err := printJSON(stdout, res.StructuredContent); err != nil {
			fmt.Fprintln(stderr, "yieldshell: printing the answer:", err)
			return 2
		}
	} else {
		for _, c := range res.Content {
			if t, ok := c.(*mcp.TextContent); ok {
				fmt.Fprintln(stdout, t.Text)
			}
		}
	}
	if res.IsError {
		return 1
	}
	return 0
}

// Tools is `yieldshell tools [--json]`: every tool with its title and
// parameters, or the full tools/list answer as JSON.
func (p *InProcess) Tools(ctx context.Context, args []string) int {
	stdout, stderr := p.Stdout, p.Stderr
	asJSON := len(args) == 1 && (args[0] == "--json" || args[0] == "-json")
	if len(args) > 0 && !asJSON {
		fmt.Fprintln(stderr, "usage: yieldshell tools [--json]")
		return 2
	}
	cs, closeSession, err := p.connect(ctx)
	if err != nil {
		fmt.Fprintln(stderr, "yieldshell:", err)
		return 2
	}
	defer closeSession()
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		fmt.Fprintln(stderr, "yieldshell: listing tools:", err)
		return 2
	}
	if asJSON {
		if err := printJSON(stdout, res.Tools); err != nil {
			fmt.Fprintln(stderr, "yieldshell: printing tools:", err)
			return 2
		}
		return 0
	}
	for _, t := range res.Tools {
		fmt.Fprintf(stdout, "%s — %s\n", t.Name, t.Title)
		for _, p := range schemaParams(t.InputSchema) {
			fmt.Fprintf(stdout, "    %s\n", p)
		}
	}
	fmt.Fprintln(stdout, "\nyieldshell tools --json prints every description and schema; yieldshell call TOOL 'JSON' runs one.")
	return 0
}

// schemaParams summarises an input schema as "name type (required): description" lines.
func schemaParams(schema any) []string {
	b, err := json.Marshal(schema)
	if err != nil {
		return nil
	}
	var s struct {
		Properties map[string]struct {
			Type        any    `json:"type"`
			Description string `json:"description"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if json.Unmarshal(b, &s) != nil {
		return nil
	}
	var lines []string
	for _, name := range sortedKeys(s.Properties, s.Required) {
		p := s.Properties[name]
		typ := fmt.Sprint(p.Type)
		if ts, ok := p.Type.([]any); ok {
			var parts []string
			for _, x := range ts {
				if x != "null" {
					parts = append(parts, fmt.Sprint(x))
				}
			}
			typ = strings.Join(parts, "|")
		}
		line := name + " " + typ
		if slices.Contains(s.Required, name) {
			line += " (required)"
		}
		if p.Description != "" {
			line += ": " + p.Description
		}
		lines = append(lines, line)
	}
	return lines
}

// sortedKeys lists required properties first, then the rest by name.
func sortedKeys[V any](m map[string]V, required []string) []string {
	var keys []string
	for _, r := range required {
		if _, ok := m[r]; ok {
			keys = append(keys, r)
		}
	}
	var rest []string
	for k := range m {
		if !slices.Contains(required, k) {
			rest = append(rest, k)
		}
	}
	slices.Sort(rest)
	return append(keys, rest...)
}

// printJSON writes v indented, with <, > and & as they are: the output is
// for people and scripts, not for embedding in HTML.
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
