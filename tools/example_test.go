package tools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yieldshell/yieldshell/tools"
)

// Adding yieldshell's tools to one's own go-sdk server, and calling exec
// through an in-memory client.
func ExampleAdd() {
	ctx := context.Background()
	server := mcp.NewServer(&mcp.Implementation{Name: "my-server", Version: "1.0.0"},
		&mcp.ServerOptions{Instructions: tools.Instructions("")})
	shells, err := tools.Add(server, tools.WithVersion("1.0.0"))
	if err != nil {
		log.Fatal(err)
	}
	defer shells.Close(ctx)

	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer ss.Close()
	client := mcp.NewClient(&mcp.Implementation{Name: "my-client", Version: "1.0.0"}, nil)
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "exec", Arguments: map[string]any{
		"command": "echo hello from yieldshell", "side_effects": []string{"NONE"}}})
	if err != nil {
		log.Fatal(err)
	}
	var out struct {
		Status   string `json:"status"`
		ExitCode *int   `json:"exit_code"`
		Stdout   string `json:"stdout"`
	}
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &out); err != nil {
		log.Fatal(err)
	}
	fmt.Println(out.Status, *out.ExitCode)
	fmt.Print(out.Stdout)
	// Output:
	// completed 0
	// hello from yieldshell
}
