//go:build unix

package console

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

	"github.com/yieldshell/yieldshell/internal/safetext"
	"github.com/yieldshell/yieldshell/internal/wire"
)

// Terminal is what a command gets: the person's terminal, and a way to
// reach the persistent server.
type Terminal struct {
	Stdin          *os.File
	Stdout, Stderr io.Writer
	// Dial opens an MCP client session to the running persistent server.
	Dial func(context.Context) (*mcp.ClientSession, error)
}

// Ps is `yieldshell ps`.
func Ps(ctx context.Context, c *Terminal, args []string) int {
	if len(args) != 0 {
		fmt.Fprintln(c.Stderr, "usage: yieldshell ps")
		return 2
	}
	return c.withSession(ctx, func(cs *mcp.ClientSession) error { return printPs(ctx, cs, c.Stdout) })
}

// Logs is `yieldshell logs ID|NAME [-f]`.
func Logs(ctx context.Context, c *Terminal, args []string) int {
	mode := printOnce
	setFollow := func() { mode = follow }
	id, ok := c.oneArg("logs", args, map[string]func(){"-f": setFollow, "--follow": setFollow})
	if !ok {
		return 2
	}
	return c.withSession(ctx, func(cs *mcp.ClientSession) error {
		return printLogs(ctx, cs, id, mode, c.Stdout, c.Stderr)
	})
}

// Attach is `yieldshell attach ID|NAME [--watch]`.
func Attach(ctx context.Context, c *Terminal, args []string) int {
	mode := typing
	setWatch := func() { mode = watching }
	id, ok := c.oneArg("attach", args, map[string]func(){"--watch": setWatch, "-watch": setWatch})
	if !ok {
		return 2
	}
	return c.withSession(ctx, func(cs *mcp.ClientSession) error {
		return attach(ctx, cs, id, mode, c.Stdin, c.Stdout)
	})
}

// oneArg reads the one ID|NAME argument of cmd among the flags it knows,
// calling each flag's func; it prints the usage when args do not fit.
func (c *Terminal) oneArg(cmd string, args []string, flags map[string]func()) (string, bool) {
	usage := map[string]string{
		"logs":   "usage: yieldshell logs ID|NAME [-f]",
		"attach": "usage: yieldshell attach ID|NAME [--watch]",
	}[cmd]
	var pos []string
	for _, a := range args {
		if set, ok := flags[a]; ok {
			set()
		} else if strings.HasPrefix(a, "-") {
			fmt.Fprintf(c.Stderr, "yieldshell %s: unknown flag %s\n%s\n", cmd, a, usage)
			return "", false
		} else {
			pos = append(pos, a)
		}
	}
	if len(pos) != 1 {
		fmt.Fprintln(c.Stderr, usage)
		return "", false
	}
	return pos[0], true
}

// withSession runs fn in an MCP client session to the running persistent
// server (never starting one: there would be nothing to see).
func (c *Terminal) withSession(ctx context.Context, fn func(*mcp.ClientSession) error) int {
	cs, err := c.Dial(ctx)
	if err == nil {
		err = fn(cs)
		cs.Close()
	}
	if err != nil {
		fmt.Fprintln(c.Stderr, "yieldshell:", err)
		return 1
	}
	return 0
}

// callInto calls a tool with its typed input and decodes its structured
// answer into out. A tool error becomes an error carrying the answer's text.
func callInto[In, Out any](ctx context.Context, cs *mcp.ClientSession, tool string, in In, out *Out) error {
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: in})
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
	var out wire.PsOut
	if err := callInto(ctx, cs, "ps", wire.PsIn{IncludeCompleted: new(true), Limit: new(1000)}, &out); err != nil {
		return err
	}
	return writePs(w, out.Processes)
}

// writePs writes processes as a table. Names and commands are the
// agent's text: their control characters are shown, never sent to the
// terminal.
func writePs(w io.Writer, processes []wire.PsEntry) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tSTATUS\tPID\tRUNTIME\tCOMMAND")
	for _, p := range processes {
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
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\n", p.ProcessID, safetext.Visible(name), status, p.Pid, rt, oneLine(p.Command, 60))
	}
	return tw.Flush()
}

// oneLine is s on one line of at most n characters, its control
// characters shown as escapes.
func oneLine(s string, n int) string {
	s = safetext.Visible(strings.Join(strings.Fields(s), " "))
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// logsMode says whether logs stops at the end of the log or follows it.
type logsMode int

const (
	printOnce logsMode = iota
	follow
)

// printLogs prints a process's whole retained log; with follow, it then
// prints output as it comes until the process ends. Following blocks in
// wait until a new line is complete (a prompt still being written shows
// with the next line, or after wait's timeout), so it never spins.
func printLogs(ctx context.Context, cs *mcp.ClientSession, id string, mode logsMode, stdout, stderr io.Writer) error {
	var seq int64
	for waiting := false; ; waiting = true {
		var out wire.OutputOut
		var err error
		if waiting {
			err = callInto(ctx, cs, "wait", wire.WaitIn{ProcessID: id, SinceSeq: new(seq), Until: "^", TimeoutMs: new(30000)}, &out)
		} else {
			err = callInto(ctx, cs, "read", wire.ReadIn{ProcessID: id, SinceSeq: new(seq)}, &out)
		}
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		seq = emit(out, seq, stdout, stderr)
		if out.Capped {
			continue
		}
		if mode != follow || out.Status != "running" {
			return nil
		}
	}
}

// emit prints an answer's output and returns the position to read on from.
// The output is the program's: its control characters are shown, never
// sent to the person's terminal (safetext.Lines).
func emit(out wire.OutputOut, seq int64, stdout, stderr io.Writer) int64 {
	if out.Stdout != nil {
		io.WriteString(stdout, safetext.Lines(*out.Stdout))
	}
	if out.Stderr != nil {
		io.WriteString(stderr, safetext.Lines(*out.Stderr))
	}
	if out.NextSeq != nil {
		return *out.NextSeq
	}
	return seq
}
