// Command outside is a program of another module that uses yieldshell's
// public packages, and only them (TestOutsideModule builds and runs it).
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yieldshell/yieldshell/screen"
	"github.com/yieldshell/yieldshell/tools"
)

func main() {
	if err := run(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, "outside:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context) error {
	c := screen.NewCleaner(80)
	fmt.Print(string(c.Close(c.Write(nil, []byte("\x1b[1mclean\x1b[0m log\r\n")))))

	server := mcp.NewServer(&mcp.Implementation{Name: "outside", Version: "1"}, nil)
	shells, err := tools.Add(server, tools.WithEnv(func(string) string { return "" }))
	if err != nil {
		return err
	}
	defer shells.Close(ctx)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		return err
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "outside-client", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		return err
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "exec",
		Arguments: map[string]any{"command": "echo exec works", "side_effects": []string{"NONE"}}})
	if err != nil {
		return err
	}
	var out struct{ Stdout string }
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &out); err != nil {
		return err
	}
	fmt.Print(out.Stdout)
	return nil
}
