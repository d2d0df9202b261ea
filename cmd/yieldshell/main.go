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
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/term"

	"github.com/yieldshell/yieldshell/internal/linerpc"
	"github.com/yieldshell/yieldshell/internal/mcplog"
	"github.com/yieldshell/yieldshell/internal/metrics"
	"github.com/yieldshell/yieldshell/internal/policy"
	"github.com/yieldshell/yieldshell/internal/pty"
	"github.com/yieldshell/yieldshell/internal/session"
	"github.com/yieldshell/yieldshell/internal/tools"
)

// shutdownTimeout bounds the whole shutdown: every process is sent SIGTERM,
// then SIGKILL after a short grace, well within this.
const shutdownTimeout = 5 * time.Second

// instructions is what initialize tells the model about the tools of a
// toolset (policy.Toolset*): only tools that toolset lists.
func instructions(toolset string) string {
	switch toolset {
	case policy.ToolsetShellYeah:
		return shellYeahInstructions
	case policy.ToolsetAll:
		return defaultInstructions + "\n" + allInstructions
	}
	return defaultInstructions
}

const defaultInstructions = `yieldshell runs shell commands for you, each under its own terminal.
- exec runs a command. Declare its side_effects honestly (["NONE"] for read-only). A fast command answers "completed" with its output; a slow one answers "backgrounded" with a process_id after yield_ms.
- exec and wait answer at once when the program waits for input (waiting_for_input, input_kind, prompt). Answer with write (newline: true presses Enter; keys for Tab, arrows, C-c; yield_ms returns the reply in the same call). Drive REPLs, debuggers and an interactive bash, zsh or fish this way; in those shells each command written with yield_ms answers when it finishes, with command_exit_code.
- For a backgrounded process: read with since_seq set to the last next_seq to get only new output; wait to block until it finishes or asks for input (at most 55 s per call); stop to end it and its children.
- Output is the terminal's text, cleaned of escape codes. For full-screen programs (vim, less, top) answers carry the rendered screen; read with view "screen" shows it any time.
- ps lists processes; cleanup forgets finished ones.
- For servers and watchers: exec with a name (a handle every tool accepts in place of process_id) and wait_for (a regex such as "Local:.*http") to answer once it is up; restart restarts it; stop with all: true stops everything.
- A password the user did not give you, or a prompt only they can answer: ask_human gives them a one-time page (secret: true types a password into the program without it ever reaching you; secret: false hands them the terminal until they press Done). Never ask the user to paste a password into the chat.`

const shellYeahInstructions = `yieldshell runs long-lived commands for you in the background, each under its own terminal, with the tools of mcp-shell-yeah.
- start_shell starts a command (dev server, watcher, test runner) under a label, a handle every tool takes, and answers with its first output once it goes quiet; start_shell_with_verification answers once a regex such as "Local:.*http" appears, and can start a crashing shell again.
- check_shell gives a shell's status, exit code, detected URLs and the log lines since the previous check; get_all_loglines gives every retained line; list_shells lists every shell; wait_for_shell blocks until a shell is running, stopped or crashed.
- When isProbablyAwaitingInput is true the shell waits at a prompt: answer with send_input, which types a line and answers with the reaction.
- stop_shell ends a shell and everything it started; restart_shell starts it again with the same options; stop_all_shells ends every shell; health_check describes the server.
- Log lines are the terminal's text, cleaned of escape codes.
- A password the user did not give you, or a prompt only they can answer: ask_human gives them a one-time page for that shell (secret: true for a password, which never reaches you). Never ask the user to paste a password into the chat.`

const allInstructions = `The mcp-shell-yeah tools are here too, on the same processes: start_shell, start_shell_with_verification, check_shell, send_input, wait_for_shell, get_all_loglines, list_shells, stop_shell, restart_shell, stop_all_shells, health_check (ask_human takes process_id, a label included). A shell's label is a name the tools above accept in place of process_id.`

func main() {
	setProcessWide()
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// setProcessWide sets what belongs to the process rather than to one server.
func setProcessWide() {
	// A client that goes away closes our stdout (or connection); without
	// this the next write to it would kill the server before it ends its
	// processes. (Notify, not Ignore: an ignored signal would be inherited
	// by every command.)
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
}

// cli is what every subcommand gets: the global flags, the environment and
// the standard streams.
type cli struct {
	stdin          *os.File
	stdout, stderr io.Writer
	getenv         func(string) string

	httpAddr  string // --http
	tokenFile string // --token-file
	persist   bool   // --persist or YIELDSHELL_PERSIST
}

// commands are the subcommands by name; "" serves MCP.
var commands = map[string]func(ctx context.Context, c *cli, args []string) int{
	"":       serveCmd,
	"call":   inProcess(callTool),
	"tools":  inProcess(listTools),
	"server": serverCmd,
	"ps":     psCmd,
	"logs":   logsCmd,
	"attach": attachCmd,

	"healthcheck": healthCmd,
}

func run(args []string, stdout, stderr io.Writer) int {
	c := &cli{stdin: os.Stdin, stdout: stdout, stderr: stderr, getenv: os.Getenv}
	fs := flag.NewFlagSet("yieldshell", flag.ContinueOnError)
	fs.SetOutput(stderr)
	showVersion := fs.Bool("version", false, "print the version and exit")
	fs.StringVar(&c.httpAddr, "http", "", "serve MCP over streamable HTTP on this address instead of stdio")
	fs.StringVar(&c.tokenFile, "token-file", "", "file holding the bearer token for --http")
	fs.BoolVar(&c.persist, "persist", false, "bridge stdio to the persistent per-user server (as "+persistEnv+"=1)")
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
	name := fs.Arg(0)
	cmd, ok := commands[name]
	if !ok || name == "" && fs.NArg() > 0 {
		fmt.Fprintf(stderr, "yieldshell: unexpected argument %q\n", name)
		usage(stderr)
		return 2
	}
	if code := c.checkFlags(name); code != 0 {
		return code
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	defer stop()
	return cmd(ctx, c, fs.Args()[min(1, fs.NArg()):])
}

// checkFlags refuses global flags that do not go with subcommand name, and
// reads YIELDSHELL_PERSIST.
func (c *cli) checkFlags(name string) int {
	if name != "" && c.httpAddr != "" {
		fmt.Fprintf(c.stderr, "yieldshell: --http serves clients; it cannot be combined with %q\n", name)
		return 2
	}
	if c.persist && (name != "" || c.httpAddr != "") {
		fmt.Fprintln(c.stderr, "yieldshell: --persist is for the stdio server; the server, ps, logs and attach commands always use the persistent server")
		return 2
	}
	persist, err := envBool(persistEnv, c.getenv)
	if err != nil {
		fmt.Fprintln(c.stderr, "yieldshell: invalid configuration:", err)
		return 2
	}
	c.persist = c.persist || persist
	return 0
}

// serveCmd serves MCP: on stdin/stdout, over HTTP with --http, or as a
// bridge to the persistent server with --persist.
func serveCmd(ctx context.Context, c *cli, args []string) int {
	if c.persist && c.httpAddr == "" {
		return bridgeCmd(ctx, c)
	}
	if c.httpAddr == "" {
		c.httpAddr = strings.TrimSpace(c.getenv(httpAddrEnv))
	}
	cfg, code, err := c.config()
	if err != nil {
		fmt.Fprintln(c.stderr, "yieldshell:", err)
		return code
	}
	var hc *httpConfig
	if c.httpAddr != "" {
		if hc, err = loadHTTPConfig(c.httpAddr, c.tokenFile, c.getenv); err != nil {
			fmt.Fprintln(c.stderr, "yieldshell:", err)
			return 2
		}
		// The token is the server's credential, not the commands': they
		// start from this environment.
		_ = os.Unsetenv(tokenEnv)
		_ = os.Unsetenv(tokenFileEnv)
		// Nor is the address theirs: a yieldshell they start serves stdio.
		_ = os.Unsetenv(httpAddrEnv)
	}
	a, err := c.newApp(cfg, longRunning)
	if err != nil {
		fmt.Fprintln(c.stderr, "yieldshell:", err)
		return 1
	}
	defer a.shutdown()
	if hc != nil {
		err = serveHTTP(ctx, a, hc, c.stderr)
	} else {
		err = serveStdio(ctx, a, c)
	}
	if err != nil {
		a.log.Error("serving", "error", err)
		return 1
	}
	return 0
}

func serveStdio(ctx context.Context, a *app, c *cli) error {
	if term.IsTerminal(int(c.stdin.Fd())) {
		// A person started it by hand: say what it is waiting for.
		fmt.Fprintln(c.stderr, "yieldshell: serving MCP on stdin/stdout; configure it as a stdio server in an MCP client (see --help). Ctrl-D ends it.")
	}
	err := a.srv.Run(ctx, &linerpc.Transport{Reader: c.stdin, Writer: nopCloser{c.stdout}})
	a.log.Debug("transport closed; shutting down", "error", err)
	if ctx.Err() != nil || errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

// nopCloser leaves stdout open when the transport closes.
type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// role says what an app is for.
type role int

const (
	// longRunning serves clients: logs at INFO, and the child subreaper, so
	// descendants that daemonise away from their process group stay our
	// children and can be found and reaped.
	longRunning role = iota
	// oneCall answers one CLI call: logs at WARN, so the answer stands alone.
	oneCall
)

// loadApp reads the configuration and builds the app; on failure it says
// why on stderr and returns the exit code.
func (c *cli) loadApp(r role) (*app, int) {
	cfg, code, err := c.config()
	if err != nil {
		fmt.Fprintln(c.stderr, "yieldshell:", err)
		return nil, code
	}
	a, err := c.newApp(cfg, r)
	if err != nil {
		fmt.Fprintln(c.stderr, "yieldshell:", err)
		return nil, 1
	}
	return a, 0
}

// config reads the policy; on failure also the exit code.
func (c *cli) config() (*policy.Config, int, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return nil, 1, fmt.Errorf("getting working directory: %w", err)
	}
	cfg, err := policy.Load(c.getenv, cwd)
	if err != nil {
		return nil, 2, fmt.Errorf("invalid configuration: %w", err)
	}
	return cfg, 0, nil
}

// newApp builds the app with the loggers for r and logs the configuration's
// warnings.
func (c *cli) newApp(cfg *policy.Config, r role) (*app, error) {
	a, err := newApp(cfg, c.loggers(r), r)
	if err != nil {
		return nil, err
	}
	for _, w := range cfg.Warnings() {
		a.log.Warn(w)
	}
	return a, nil
}

// loggers are the two loggers a server needs: its own records on stderr,
// and the SDK's.
type loggers struct {
	stderr slog.Handler
	sdk    *slog.Logger
}

func (c *cli) loggers(r role) loggers {
	level := logLevel(c.getenv, r)
	return loggers{
		stderr: slog.NewTextHandler(c.stderr, &slog.HandlerOptions{Level: level}),
		// The SDK reports every connection at INFO; keep that for debugging.
		sdk: slog.New(slog.NewTextHandler(c.stderr, &slog.HandlerOptions{Level: max(level, slog.LevelWarn)})),
	}
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
	srv        *mcp.Server
	mgr        *session.Manager
	people     *people // ask_human's pages, approvals (human.go)
	metrics    *metrics.Metrics
	log        *slog.Logger
	tempLogDir string // removed at shutdown; "" when none was made

	background sync.WaitGroup // registerInBackground
	registered chan struct{}  // closed once every tool is registered
}

// newApp builds the server.
func newApp(cfg *policy.Config, l loggers, r role) (*app, error) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "yieldshell", Title: "yieldshell", Version: buildVersion(), Icons: tools.Icons()},
		&mcp.ServerOptions{Instructions: instructions(cfg.Toolset), Logger: l.sdk,
			// Stated, not inferred from the tools registered so far (see
			// registerInBackground); the tool set never changes.
			Capabilities: &mcp.ServerCapabilities{Logging: &mcp.LoggingCapabilities{}, Tools: &mcp.ToolCapabilities{}}})
	log := slog.New(mcplog.NewHandler(l.stderr, srv))
	if r == longRunning {
		if err := pty.SetChildSubreaper(); err != nil {
			log.Warn("cannot become child subreaper; escaped descendants will be reaped by init", "error", err)
		}
	}
	// The mcp-shell-yeah tools always answer with a log file and a command
	// that follows it, as that server does; without a configured directory
	// they go to a private one that lives as long as the server.
	var tempLogDir string
	if cfg.LogDir == "" && cfg.Toolset != policy.ToolsetDefault {
		d, err := session.NewTempDir("logs") // swept by the next server if this one is killed
		if err != nil {
			return nil, fmt.Errorf("making a directory for the shells' logs (or set YIELDSHELL_LOG_DIR): %w", err)
		}
		cfg.LogDir, tempLogDir = d, d
	}
	mgr, err := newManager(cfg, log)
	if err != nil {
		if tempLogDir != "" {
			os.RemoveAll(tempLogDir)
		}
		return nil, err
	}
	pp, err := newPeople(log)
	if err != nil {
		mgr.Shutdown(context.Background())
		return nil, err
	}
	m := metrics.New(mgr)
	a := &app{srv: srv, mgr: mgr, people: pp, log: log, metrics: m, tempLogDir: tempLogDir, registered: make(chan struct{})}
	srv.AddReceivingMiddleware(recoverPanics(log), m.Middleware(), a.awaitTools())
	a.registerInBackground(cfg, r)
	return a, nil
}

// newManager returns the process manager of a server that runs commands
// on this machine. From here on this process reaps every child of its own
// (the Manager's engine, [session.LocalOptions]); the Manager owns it and
// its Shutdown closes it.
func newManager(cfg *policy.Config, log *slog.Logger) (*session.Manager, error) {
	opts, err := session.LocalOptions(log)
	if err != nil {
		return nil, err
	}
	return session.NewManager(cfg, opts)
}

// tuneGC makes the collector keep resident memory close to what is
// retained. Most of the heap is long-lived: the retained output and
// unread screen of every process. Collecting once garbage reaches half of
// it, instead of all of it, keeps resident memory close to what is
// retained; with little garbage made, the extra collections cost little.
// It is set once start-up's garbage (the tools' schemas) is made: at 50
// the collector ran through it and slowed the answer to initialize. GOGC,
// when set, still decides.
func tuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(50)
	}
}

// registerInBackground registers the tools, and then, for a server that
// serves, starts the orphan sweep. Building and resolving the tools'
// schemas takes more CPU than the rest of start-up together (12 ms for the
// default toolset on an idle core, 20-35 ms in a new process on a busy
// machine), and the sweep reads every process on the machine: neither may
// hold up the answer to initialize, whose time clients count against a
// server's start. Every other request waits for the tools (awaitTools).
// shutdown joins the goroutine.
func (a *app) registerInBackground(cfg *policy.Config, r role) {
	a.background.Go(func() {
		tools.Register(a.srv, a.mgr, cfg, buildVersion(), tools.WithHuman(a.people.ask))
		close(a.registered)
		tuneGC()
		if r == longRunning {
			// Only a server that serves judges what other servers left
			// behind; the Manager owns the sweep and Shutdown joins it.
			a.mgr.SweepOrphans()
		}
	})
}

// awaitTools holds every request but initialize until the tools are
// registered, so that none sees part of the tool set.
func (a *app) awaitTools() mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method != "initialize" {
				select {
				case <-a.registered:
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			}
			return next(ctx, method, req)
		}
	}
}

// shutdown ends every process the server started.
func (a *app) shutdown() {
	sctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	a.background.Wait() // registration: the sweep must start before Shutdown, or not at all
	if err := a.people.close(sctx); err != nil {
		a.log.Warn("closing the pages for people", "error", err)
	}
	a.mgr.Shutdown(sctx)
	if a.tempLogDir != "" {
		if err := os.RemoveAll(a.tempLogDir); err != nil {
			a.log.Warn("removing the shells' log directory", "error", err)
		}
	}
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
// for one CLI call, whose answer should stand alone.
func logLevel(getenv func(string) string, r role) slog.Level {
	var l slog.Level
	if err := l.UnmarshalText([]byte(getenv("YIELDSHELL_LOG_LEVEL"))); err != nil {
		if r == oneCall {
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
  yieldshell healthcheck [ADDR]    exit 0 if the --http server on ADDR (default: YIELDSHELL_HTTP_ADDR)
                                   answers GET /healthz: a container's health check
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
		policy.Var{Name: httpAddrEnv, Help: "Serve MCP over streamable HTTP on this address when --http is not given; healthcheck asks it."},
		policy.Var{Name: tokenEnv, Help: "Bearer token for --http (at least 16 characters)."},
		policy.Var{Name: tokenFileEnv, Help: "File holding the bearer token for --http; wins over " + tokenEnv + "."},
		policy.Var{Name: maxConnsEnv, Default: strconv.Itoa(defaultMaxConns),
			Help: "--http: connections open at once; more wait to be accepted."},
		policy.Var{Name: maxSessionsEnv, Default: strconv.Itoa(defaultMaxSessions),
			Help: "--http: MCP sessions open at once; a request for another gets 503."})
	vars = append(vars, persistVars()...)
	for _, v := range vars {
		def := v.Default
		if def == "" {
			def = "(none)"
		}
		fmt.Fprintf(w, "  %s (default: %s)\n      %s\n", v.Name, def, v.Help)
	}
}
