//go:build unix

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yieldshell/yieldshell/tools"
)

// peopleCmd runs ps, logs and attach: views for a person at a terminal of
// what the persistent server runs, through an MCP session to it, the way
// an agent sees it.
func peopleCmd(ctx context.Context, cmd string, args []string, stdout, stderr io.Writer) int {
	usage := map[string]string{
		"ps":     "usage: yieldshell ps",
		"logs":   "usage: yieldshell logs ID|NAME [-f]",
		"attach": "usage: yieldshell attach ID|NAME [--watch]",
	}[cmd]
	follow, watch := false, false
	var pos []string
	for _, a := range args {
		switch {
		case cmd == "logs" && (a == "-f" || a == "--follow"):
			follow = true
		case cmd == "attach" && (a == "--watch" || a == "-watch"):
			watch = true
		case strings.HasPrefix(a, "-"):
			fmt.Fprintf(stderr, "yieldshell %s: unknown flag %s\n%s\n", cmd, a, usage)
			return 2
		default:
			pos = append(pos, a)
		}
	}
	if want := map[string]int{"ps": 0, "logs": 1, "attach": 1}[cmd]; len(pos) != want {
		fmt.Fprintln(stderr, usage)
		return 2
	}
	cs, err := dialSession(ctx, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "yieldshell:", err)
		return 1
	}
	defer cs.Close()
	switch cmd {
	case "ps":
		err = printPs(ctx, cs, stdout)
	case "logs":
		err = printLogs(ctx, cs, pos[0], follow, stdout, stderr)
	case "attach":
		err = attach(ctx, cs, pos[0], watch, os.Stdin, stdout)
	}
	if err != nil {
		fmt.Fprintln(stderr, "yieldshell:", err)
		return 1
	}
	return 0
}

// dialSession opens an MCP client session to the running persistent
// server (never starting one: there would be nothing to see).
func dialSession(ctx context.Context, stderr io.Writer) (*mcp.ClientSession, error) {
	dir, err := runtimeDir(os.Getenv)
	if err != nil {
		return nil, err
	}
	c, br, err := connectMCP(dir, false, stderr)
	if errors.Is(err, errNotRunning) {
		return nil, fmt.Errorf("%w: it starts when an MCP client runs yieldshell with --persist or %s=1", err, persistEnv)
	}
	if err != nil {
		return nil, err
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "yieldshell-cli", Version: buildVersion()}, nil).
		Connect(ctx, &mcp.IOTransport{Reader: bufConn{br, c}, Writer: c}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("connecting to the yieldshell server: %w", err)
	}
	return cs, nil
}

// callInto calls a tool and decodes its structured answer into out. A tool
// error becomes an error carrying the answer's text.
func callInto(ctx context.Context, cs *mcp.ClientSession, tool string, args map[string]any, out any) error {
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return fmt.Errorf("calling %s: %w", tool, err)
	}
	if res.IsError {
		var e struct {
			Error string `json:"error"`
		}
		b, _ := json.Marshal(res.StructuredContent)
		if json.Unmarshal(b, &e) == nil && e.Error != "" {
			return errors.New(e.Error)
		}
		for _, c := range res.Content {
			if t, ok := c.(*mcp.TextContent); ok {
				return errors.New(t.Text)
			}
		}
		return fmt.Errorf("%s failed", tool)
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		return fmt.Errorf("decoding %s: %w", tool, err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("decoding %s: %w", tool, err)
	}
	return nil
}

// printPs prints the server's processes as a table, newest first.
func printPs(ctx context.Context, cs *mcp.ClientSession, w io.Writer) error {
	var out tools.PsOut
	if err := callInto(ctx, cs, "ps", map[string]any{"include_completed": true, "limit": 1000}, &out); err != nil {
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tSTATUS\tPID\tRUNTIME\tCOMMAND")
	for _, p := range out.Processes {
		status := p.Status
		if p.ExitCode != nil {
			status = fmt.Sprintf("%s (%d)", status, *p.ExitCode)
		} else if p.WaitingForInput != nil && *p.WaitingForInput {
			status += " (input)"
		}
		name := p.Name
		if name == "" {
			name = "-"
		}
		rt := (time.Duration(p.DurationMs) * time.Millisecond).Round(time.Second)
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\n", p.ProcessID, name, status, p.Pid, rt, oneLine(p.Command, 60))
	}
	return tw.Flush()
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// printLogs prints a process's whole retained log; with follow, it then
// prints output as it comes until the process ends. Following blocks in
// wait until a new line is complete (a prompt still being written shows
// with the next line, or after wait's timeout), so it never spins.
func printLogs(ctx context.Context, cs *mcp.ClientSession, id string, follow bool, stdout, stderr io.Writer) error {
	var seq int64
	args := map[string]any{"process_id": id, "since_seq": seq}
	for tool := "read"; ; {
		args["since_seq"] = seq
		var out tools.OutputOut
		if err := callInto(ctx, cs, tool, args, &out); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		seq = emit(out, seq, stdout, stderr)
		if out.Capped {
			continue
		}
		if !follow || out.Status != "running" {
			return nil
		}
		tool, args["until"], args["timeout_ms"] = "wait", "^", 30000
	}
}

// emit prints an answer's output and returns the position to read on from.
func emit(out tools.OutputOut, seq int64, stdout, stderr io.Writer) int64 {
	if out.Stdout != nil {
		io.WriteString(stdout, *out.Stdout)
	}
	if out.Stderr != nil {
		io.WriteString(stderr, *out.Stderr)
	}
	if out.NextSeq != nil {
		return *out.NextSeq
	}
	return seq
}
