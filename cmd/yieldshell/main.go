//go:build unix

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
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/term"

	"github.com/yieldshell/yieldshell/metrics"
	"github.com/yieldshell/yieldshell/policy"
	"github.com/yieldshell/yieldshell/pty"
	"github.com/yieldshell/yieldshell/session"
	"github.com/yieldshell/yieldshell/tools"
)

// shutdownTimeout bounds the whole shutdown: every process is sent SIGTERM,
// then SIGKILL after a short grace, well within this.
const shutdownTimeout = 5 * time.Second

const instructions = `yieldshell runs shell commands for you, each under its own terminal.
- exec runs a command. Declare its side_effects honestly (["NONE"] for read-only). A fast command answers "completed" with its output; a slow one answers "backgrounded" with a process_id after yield_ms.
- exec and wait answer at once when the program waits for input (waiting_for_input, input_kind, prompt). Answer with write (newline: true presses Enter; keys for Tab, arrows, C-c; yield_ms returns the reply in the same call). Drive REPLs, debuggers and an interactive bash this way; in bash each command written with yield_ms answers when it finishes, with command_exit_code.
- For a backgrounded process: read with since_seq set to the last next_seq to get only new output; wait to block until it finishes or asks for input (at most 55 s per call); stop to end it and its children.
- Output is the terminal's text, cleaned of escape codes. For full-screen programs (vim, less, top) answers carry the rendered screen; read with view "screen" shows it any time.
- ps lists processes; cleanup forgets finished ones.
- For servers and watchers: exec with a name (a handle every tool accepts in place of process_id) and wait_for (a regex such as "Local:.*http") to answer once it is up; restart restarts it; stop with all: true stops everything.`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("yieldshell", flag.ContinueOnError)
	fs.SetOutput(stderr)
	showVersion := fs.Bool("version", false, "print the version and exit")
	httpAddr := fs.String("http", "", "serve MCP over streamable HTTP on this address instead of stdio")
	tokenFile := fs.String("token-file", "", "file holding the bearer token for --http")
	persistFlag := fs.Bool("persist", false, "bridge stdio to the persistent per-user server (as "+persistEnv+"=1)")
	fs.Usage = func() { usage(stderr) }
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if *showVersion {
		fmt.Fprintln(stderr, versionLine())
		return 0
	}
	var cmd string
	if fs.NArg() > 0 {
		cmd = fs.Arg(0)
		if !slices.Contains([]string{"call", "tools", "server", "ps", "logs", "attach"}, cmd) {
			fmt.Fprintf(stderr, "yieldshell: unexpected argument %q\n", cmd)
			usage(stderr)
			return 2
		}
		if *httpAddr != "" {
			fmt.Fprintf(stderr, "yieldshell: --http serves clients; it cannot be combined with %q\n", cmd)
			return 2
		}
	}
	persist, err := envBool(persistEnv, os.Getenv)
	if err != nil {
		fmt.Fprintln(stderr, "yieldshell: invalid configuration:", err)
		return 2
	}
	persist = persist || *persistFlag
	if *persistFlag && (cmd != "" || *httpAddr != "") {
		fmt.Fprintln(stderr, "yieldshell: --persist is for the stdio server; the server, ps, logs and attach commands always use the persistent server")
		return 2
	}

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	defer stop()
	logs := func(cli bool) loggers {
		level := logLevel(cli)
		return loggers{
			stderr: slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}),
			// The SDK reports every connection at INFO; keep that for debugging.
			sdk: slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: max(level, slog.LevelWarn)})),
		}
	}
	switch {
	case cmd == "server":
		return serverCmd(ctx, fs.Args()[1:], func() loggers { return logs(false) }, stdout, stderr)
	case cmd == "ps" || cmd == "logs" || cmd == "attach":
		return peopleCmd(ctx, cmd, fs.Args()[1:], stdout, stderr)
	case cmd == "" && *httpAddr == "" && persist:
		return runBridge(ctx, os.Stdin, stdout, stderr)
	}

	l := logs(cmd != "")
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
	var hc *httpConfig
	if *httpAddr != "" {
		if hc, err = loadHTTPConfig(*httpAddr, *tokenFile, os.Getenv); err != nil {
			fmt.Fprintln(stderr, "yieldshell:", err)
			return 2
		}
	}

	a, err := newApp(cfg, l.stderr, l.sdk, cmd == "")
	if err != nil {
		fmt.Fprintln(stderr, "yieldshell:", err)
		return 1
	}
	defer a.shutdown()
	for _, w := range cfg.Warnings() {
		a.log.Warn(w)
	}
	switch {
	case cmd == "tools":
		return listTools(ctx, a.srv, fs.Args()[1:], stdout, stderr)
	case cmd == "call":
		return callTool(ctx, a.srv, fs.Args()[1:], stdout, stderr)
	case hc != nil:
		err = serveHTTP(ctx, a, hc, stderr)
	default:
		if term.IsTerminal(int(os.Stdin.Fd())) {
			// A person started it by hand: say what it is waiting for.
			fmt.Fprintln(stderr, "yieldshell: serving MCP on stdin/stdout; configure it as a stdio server in an MCP client (see --help). Ctrl-D ends it.")
		}
		err = a.srv.Run(ctx, &mcp.StdioTransport{})
		a.log.Debug("transport closed; shutting down", "error", err)
		if ctx.Err() != nil || errors.Is(err, io.EOF) {
			err = nil
		}
	}
	if err != nil {
		a.log.Error("serving", "error", err)
		return 1
	}
	return 0
}

// loggers are the two loggers a server needs: its own records on stderr,
// and the SDK's.
type loggers struct {
	stderr slog.Handler
	sdk    *slog.Logger
}

// envBool reads a boolean variable: 1, true, yes, on or 0, false, no, off
// (blank: false).
func envBool(name string, getenv func(string) string) (bool, error) {
	switch v := strings.ToLower(strings.TrimSpace(getenv(name))); v {
	case "1", "true", "yes", "on":
		return true, nil
	case "", "0", "false", "no", "off":
		return false, nil
	}
	return false, fmt.Errorf("%s=%q: use 1, true, yes, on or 0, false, no, off", name, getenv(name))
}

// app is one server: the MCP surface over the process manager. Every mode
// (stdio, HTTP, the CLI) serves one app and shuts it down the same way.
type app struct {
	srv         *mcp.Server
	mgr         *session.Manager
	metrics     *metrics.Metrics
	log         *slog.Logger
	cancelProcs context.CancelFunc
}

// newApp builds the server. subreaper is for the modes that run for long:
// as the child subreaper, descendants that daemonise away from their
// process group stay our children and can be found and reaped.
func newApp(cfg *policy.Config, stderrLog slog.Handler, sdkLog *slog.Logger, subreaper bool) (*app, error) {
	// Most of the heap is long-lived: the retained output and unread screen
	// of every process. Collecting once garbage reaches half of it, instead
	// of all of it, keeps resident memory close to what is retained; with
	// little garbage made, the extra collections cost little. GOGC, when
	// set, still decides.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(50)
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "yieldshell", Title: "yieldshell", Version: buildVersion()},
		&mcp.ServerOptions{Instructions: instructions, Logger: sdkLog})
	log := slog.New(newTeeHandler(stderrLog, srv))
	if subreaper {
		if err := pty.SetChildSubreaper(); err != nil {
			log.Warn("cannot become child subreaper; escaped descendants will be reaped by init", "error", err)
		}
	}
	// A client that goes away closes our stdout (or connection); without
	// this the next write to it would kill the server before it ends its
	// processes. (Notify, not Ignore: an ignored signal would be inherited
	// by every command.)
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)

	procCtx, cancelProcs := context.WithCancel(context.Background())
	mgr, err := session.NewManager(procCtx, cfg, log)
	if err != nil {
		cancelProcs()
		return nil, err
	}
	m := metrics.New(mgr)
	srv.AddReceivingMiddleware(recoverPanics(log), m.Middleware())
	tools.Register(srv, mgr, cfg, buildVersion())
	return &app{srv: srv, mgr: mgr, metrics: m, log: log, cancelProcs: cancelProcs}, nil
}

// shutdown ends every process the server started.
func (a *app) shutdown() {
	sctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	a.mgr.Shutdown(sctx)
	a.cancelProcs()
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

// logLevel is YIELDSHELL_LOG_LEVEL; by default INFO for a server and WARN
// for the CLI, whose answer should stand alone.
func logLevel(cli bool) slog.Level {
	var l slog.Level
	if err := l.UnmarshalText([]byte(os.Getenv("YIELDSHELL_LOG_LEVEL"))); err != nil {
		if cli {
			return slog.LevelWarn
		}
		return slog.LevelInfo
	}
	return l
}

func usage(w io.Writer) {
	fmt.Fprintf(w, `yieldshell %s: an MCP server that runs shell commands for agents, each under its own pseudo-terminal.

Usage:
  yieldshell                       serve MCP over stdin/stdout (logs go to stderr)
  yieldshell --http ADDR           serve MCP over streamable HTTP at http://ADDR/mcp; ADDR is PORT
                                   (127.0.0.1), or HOST:PORT to listen beyond this machine.
                                   Requests need "Authorization: Bearer TOKEN"; the token comes from
                                   --token-file FILE, YIELDSHELL_HTTP_TOKEN_FILE or YIELDSHELL_HTTP_TOKEN
                                   (required off loopback; generated and printed on loopback)
  yieldshell call TOOL ['JSON']    run one tool call and print its answer (exit 1 on a tool error)
  yieldshell tools [--json]        list the tools with their parameters (--json: full schemas)
  yieldshell --persist             serve stdio as a bridge to this user's persistent server, which
                                   owns the processes and outlives the client (as YIELDSHELL_PERSIST=1)
  yieldshell server start|stop|status|run
                                   start the persistent server in the background; stop it and every
                                   process it runs; show it; or run it in the foreground
  yieldshell ps                    list the persistent server's processes
  yieldshell logs ID|NAME [-f]     print a process's whole log; -f follows it until it ends
  yieldshell attach ID|NAME [--watch]
                                   show a process's terminal and type into it; Ctrl-] detaches and
                                   leaves it running; --watch only watches (Ctrl-C leaves too)
  yieldshell --version             print the version
  yieldshell --help                print this help

Environment variables:
`, buildVersion())
	vars := append(policy.Vars(),
		policy.Var{Name: "YIELDSHELL_LOG_LEVEL", Default: "INFO",
			Help: "Server log level on stderr: DEBUG, INFO, WARN or ERROR (WARN by default for call and tools)."},
		policy.Var{Name: tokenEnv, Help: "Bearer token for --http (at least 16 characters)."},
		policy.Var{Name: tokenFileEnv, Help: "File holding the bearer token for --http; wins over " + tokenEnv + "."},
		policy.Var{Name: persistEnv, Default: "0",
			Help: "1 (true, yes, on): stdio yieldshell bridges to the persistent per-user server, as --persist does."},
		policy.Var{Name: idleEnv, Default: strconv.Itoa(int(defaultIdle.Milliseconds())),
			Help: "The persistent server exits after this long with no running process and no client; 0: never. Read when it starts."})
	for _, v := range vars {
		def := v.Default
		if def == "" {
			def = "(none)"
		}
		fmt.Fprintf(w, "  %s (default: %s)\n      %s\n", v.Name, def, v.Help)
	}
}
