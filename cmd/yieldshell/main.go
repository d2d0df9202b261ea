// Command yieldshell is an MCP server through which agents run and drive
// shell commands, each under its own pseudo-terminal.
//
// Usage:
//
//	yieldshell            serve MCP over stdin/stdout
//	yieldshell --version  print the version
//	yieldshell --help     print usage and every environment variable
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/term"

	"github.com/yieldshell/yieldshell/policy"
	"github.com/yieldshell/yieldshell/pty"
	"github.com/yieldshell/yieldshell/session"
	"github.com/yieldshell/yieldshell/tools"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = ""

// shutdownTimeout bounds the whole shutdown: every process is sent SIGTERM,
// then SIGKILL after a short grace, well within this.
const shutdownTimeout = 5 * time.Second

const instructions = `yieldshell runs shell commands for you, each under its own terminal.
- exec runs a command. Declare its side_effects honestly (["NONE"] for read-only). A fast command answers "completed" with its output; a slow one answers "backgrounded" with a process_id after yield_ms.
- For a backgrounded process: read with since_seq set to the last next_seq to get only new output; wait to block until it finishes (at most 55 s per call); write to answer its prompts (newline: true presses Enter); stop to end it and its children.
- Output is the terminal's text, cleaned of escape codes. For full-screen programs (vim, less, top) answers carry the rendered screen; read with view "screen" shows it any time.
- ps lists processes; cleanup forgets finished ones.`

func main() {
	os.Exit(run(os.Args[1:], os.Stderr))
}

func run(args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("yieldshell", flag.ContinueOnError)
	fs.SetOutput(stderr)
	showVersion := fs.Bool("version", false, "print the version and exit")
	fs.Usage = func() { usage(stderr) }
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if *showVersion {
		fmt.Fprintln(stderr, "yieldshell", buildVersion())
		return 0
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "yieldshell: unexpected argument %q\n", fs.Arg(0))
		usage(stderr)
		return 2
	}

	level := logLevel()
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	// The SDK reports every connection at INFO; keep that for debugging.
	sdkLog := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: max(level, slog.LevelWarn)}))
	cwd, err := os.Getwd()
	if err != nil {
		fmt.Fprintln(stderr, "yieldshell: getting working directory:", err)
		return 1
	}
	cfg, err := policy.Load(os.Getenv, cwd)
	if err != nil {
		fmt.Fprintln(stderr, "yieldshell: invalid configuration:", err)
		return 2
	}
	if term.IsTerminal(int(os.Stdin.Fd())) {
		// A person started it by hand: say what it is waiting for.
		fmt.Fprintln(stderr, "yieldshell: serving MCP on stdin/stdout; configure it as a stdio server in an MCP client (see --help). Ctrl-D ends it.")
	}
	for _, w := range cfg.Warnings() {
		log.Warn(w)
	}
	if err := serve(cfg, log, sdkLog); err != nil {
		log.Error("serving", "error", err)
		return 1
	}
	return 0
}

func serve(cfg *policy.Config, log, sdkLog *slog.Logger) error {
	// Most of the heap is long-lived: the retained output and unread screen
	// of every process. Collecting once garbage reaches half of it, instead
	// of all of it, keeps resident memory close to what is retained; with
	// little garbage made, the extra collections cost little. GOGC, when
	// set, still decides.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(50)
	}
	// As the child subreaper, descendants that daemonise away from their
	// process group stay our children: they can be found and reaped.
	if err := pty.SetChildSubreaper(); err != nil {
		log.Warn("cannot become child subreaper; escaped descendants will be reaped by init", "error", err)
	}
	// A client that goes away closes our stdout; without this the next write
	// to it would kill the server before it ends its processes. (Notify, not
	// Ignore: an ignored signal would be inherited by every command.)
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	defer stop()

	procCtx, cancelProcs := context.WithCancel(context.Background())
	defer cancelProcs()
	mgr, err := session.NewManager(procCtx, cfg, log)
	if err != nil {
		return err
	}

	srv := mcp.NewServer(&mcp.Implementation{Name: "yieldshell", Title: "yieldshell", Version: buildVersion()},
		&mcp.ServerOptions{Instructions: instructions, Logger: sdkLog})
	srv.AddReceivingMiddleware(recoverPanics(log))
	tools.Register(srv, mgr, cfg)

	err = srv.Run(ctx, &mcp.StdioTransport{})
	log.Debug("transport closed; shutting down", "error", err)
	sctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	mgr.Shutdown(sctx)
	if err != nil && ctx.Err() == nil && !errors.Is(err, io.EOF) {
		return err
	}
	return nil
}

// recoverPanics turns a panic in a handler into an error answer instead of
// a dead server (and every process with it).
func recoverPanics(log *slog.Logger) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (res mcp.Result, err error) {
			defer func() {
				if r := recover(); r != nil {
					log.Error("handler panicked", "method", method, "panic", r, "stack", string(debug.Stack()))
					if method == "tools/call" {
						res = &mcp.CallToolResult{IsError: true, Content: []mcp.Content{
							&mcp.TextContent{Text: fmt.Sprintf("internal error: %v", r)}}}
						err = nil
						return
					}
					err = fmt.Errorf("internal error: %v", r)
				}
			}()
			return next(ctx, method, req)
		}
	}
}

func logLevel() slog.Level {
	var l slog.Level
	if err := l.UnmarshalText([]byte(os.Getenv("YIELDSHELL_LOG_LEVEL"))); err != nil {
		return slog.LevelInfo
	}
	return l
}

func buildVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "0.1.0-dev"
}

func usage(w io.Writer) {
	fmt.Fprintf(w, `yieldshell %s: an MCP server that runs shell commands for agents, each under its own pseudo-terminal.

Usage:
  yieldshell            serve MCP over stdin/stdout (logs go to stderr)
  yieldshell --version  print the version
  yieldshell --help     print this help

Environment variables:
`, buildVersion())
	vars := append(policy.Vars(), policy.Var{Name: "YIELDSHELL_LOG_LEVEL", Default: "INFO",
		Help: "Server log level on stderr: DEBUG, INFO, WARN or ERROR."})
	for _, v := range vars {
		def := v.Default
		if def == "" {
			def = "(none)"
		}
		fmt.Fprintf(w, "  %s (default: %s)\n      %s\n", v.Name, def, v.Help)
	}
}
