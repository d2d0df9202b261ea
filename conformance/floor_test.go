package conformance

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// floorServer is the benchmarks' floor (ys-helper sdk-floor): a go-sdk
// server over stdio whose one tool, exec, runs a simple command line the
// way yieldshell runs one, directly (split on blanks, found in PATH, no
// shell), and answers with its output and exit code. It adds nothing of
// its own: no terminal, log, policy or tracking. An exec through it is
// what any go-sdk server costs a client, so exec over the floor is what
// yieldshell adds.
func floorServer() int {
	type in struct {
		Command     string   `json:"command"`
		SideEffects []string `json:"side_effects,omitempty"`
		TTY         bool     `json:"tty,omitempty"`
	}
	type out struct {
		Output   string `json:"output"`
		ExitCode int    `json:"exit_code"`
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "sdk-floor", Version: "0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "exec"}, func(ctx context.Context, _ *mcp.CallToolRequest, a in) (*mcp.CallToolResult, out, error) {
		argv := strings.Fields(a.Command)
		if len(argv) == 0 {
			return nil, out{}, errors.New("no command")
		}
		var b bytes.Buffer
		cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
		cmd.Stdout, cmd.Stderr = &b, &b
		err := cmd.Run()
		var exit *exec.ExitError
		switch {
		case errors.As(err, &exit):
			return nil, out{Output: b.String(), ExitCode: exit.ExitCode()}, nil
		case err != nil:
			return nil, out{}, err
		}
		return nil, out{Output: b.String()}, nil
	})
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		return 1
	}
	return 0
}
