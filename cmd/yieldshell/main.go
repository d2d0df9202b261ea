package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"

	"golang.org/x/term"

	"github.com/yieldshell/yieldshell/internal/app"
	"github.com/yieldshell/yieldshell/internal/console"
	"github.com/yieldshell/yieldshell/internal/executor"
	"github.com/yieldshell/yieldshell/internal/httpserve"
	"github.com/yieldshell/yieldshell/internal/linerpc"
	"github.com/yieldshell/yieldshell/internal/metrics"
	"github.com/yieldshell/yieldshell/internal/netjail"
	"github.com/yieldshell/yieldshell/internal/policy"
	"github.com/yieldshell/yieldshell/internal/proc"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == netjail.HelperCommand {
		os.Exit(netjail.Main(os.Args[2:])) // a sandboxed command's first step: before anything else, then exec
	}
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
	environ        []string // KEY=VALUE, as os.Environ

	httpAddr  string // --http
	tokenFile string // --token-file
	persist   bool   // --persist or YIELDSHELL_PERSIST
}

// persistEnv is daemon.PersistEnv, which Windows does not build.
const persistEnv = "YIELDSHELL_PERSIST"

// commands are the subcommands by name; "" serves MCP.
var commands = map[string]func(ctx context.Context, c *cli, args []string) int{
	"":       serveCmd,
	"call":   inProcess((*console.InProcess).Call),
	"tools":  inProcess((*console.InProcess).Tools),
	"server": serverCmd,
	"ps":     psCmd,
	"logs":   logsCmd,
	"attach": attachCmd,
	// Another host's end of exec's host: started there over ssh.
	"executor": func(ctx context.Context, c *cli, args []string) int {
		return executor.Main(ctx, args, c.stdin, c.stdout, c.stderr)
	},

	"healthcheck": func(ctx context.Context, c *cli, args []string) int {
		return httpserve.HealthCmd(ctx, c.getenv, args, c.stderr)
	},
}

// inProcess makes fn (call or tools) a subcommand that asks an app of its
// own.
func inProcess(fn func(*console.InProcess, context.Context, []string) int) func(context.Context, *cli, []string) int {
	return func(ctx context.Context, c *cli, args []string) int {
		a, code := c.loadApp(app.OneCall)
		if a == nil {
			return code
		}
		defer a.Shutdown()
		return fn(&console.InProcess{Server: a.Server, Version: buildVersion(), Stdout: c.stdout, Stderr: c.stderr}, ctx, args)
	}
}

func run(args []string, stdout, stderr io.Writer) int {
	c := &cli{stdin: os.Stdin, stdout: stdout, stderr: stderr, getenv: os.Getenv, environ: os.Environ()}
	fs := flag.NewFlagSet("yieldshell", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are said below, naming the flag as typed
	showVersion := fs.Bool("version", false, "print the version and exit")
	fs.StringVar(&c.httpAddr, "http", "", "serve MCP over streamable HTTP on this address instead of stdio")
	fs.StringVar(&c.tokenFile, "token-file", "", "file holding the bearer token for --http")
	fs.BoolVar(&c.persist, "persist", false, "bridge stdio to the persistent per-user server (as "+persistEnv+"=1)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			usage(stdout)
			return 0
		}
		fmt.Fprintf(stderr, "yieldshell: %s (yieldshell help lists the commands and flags)\n", asTyped(err, args))
		return 2
	}
	if *showVersion {
		fmt.Fprintln(stdout, versionLine())
		return 0
	}
	name := fs.Arg(0)
	if name == "help" {
		return help(stdout, stderr, fs.Arg(1))
	}
	if rest := fs.Args()[min(1, fs.NArg()):]; name != "" && len(rest) == 1 && (rest[0] == "--help" || rest[0] == "-h") {
		return help(stdout, stderr, name)
	}
	cmd, ok := commands[name]
	if !ok || name == "" && fs.NArg() > 0 {
		fmt.Fprintf(stderr, "yieldshell: unexpected argument %q\n", name)
		usage(stderr)
		return 2
	}
	if code := c.checkFlags(name); code != 0 {
		return code
	}
	// A command that serves (or starts the server) must not run without a
	// security setting the operator misspelled; one that looks is warned.
	if code := c.checkEnv(name == "" || name == "call" || name == "tools" || name == "server"); code != 0 {
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
		c.httpAddr = strings.TrimSpace(c.getenv(httpserve.AddrEnv))
	}
	cfg, code, err := c.config()
	if err != nil {
		fmt.Fprintln(c.stderr, "yieldshell:", err)
		return code
	}
	var hc *httpserve.Config
	if c.httpAddr != "" {
		if hc, err = httpserve.LoadConfig(c.httpAddr, c.tokenFile, c.getenv); err != nil {
			fmt.Fprintln(c.stderr, "yieldshell:", err)
			return 2
		}
		// The token is the server's credential, not the commands': they
		// start from this environment, and can read the block this process
		// started with in /proc/PID/environ. Nor is the address theirs: a
		// yieldshell they start serves stdio.
		if err := proc.ScrubEnv(httpserve.TokenEnv, httpserve.TokenFileEnv, httpserve.AddrEnv); err != nil {
			fmt.Fprintf(c.stderr, "yieldshell: warning: %v; commands may read %s in /proc; prefer --token-file\n", err, httpserve.TokenEnv)
		}
	}
	a, err := c.newApp(cfg, app.LongRunning)
	if err != nil {
		fmt.Fprintln(c.stderr, "yieldshell:", err)
		return 1
	}
	defer a.Shutdown()
	// A signal ends the calls in flight at once: neither the SDK's stdio
	// session nor the HTTP server stops before every handler returned.
	defer context.AfterFunc(ctx, a.EndCalls)()
	if hc != nil {
		err = httpServer(a, hc).ListenAndServe(ctx, c.stderr)
	} else {
		err = serveStdio(ctx, a, c)
	}
	if err != nil {
		a.Log.Error("serving", "error", err)
		return 1
	}
	return 0
}

func serveStdio(ctx context.Context, a *app.App, c *cli) error {
	if term.IsTerminal(int(c.stdin.Fd())) {
		// A person started it by hand: say what it is waiting for.
		fmt.Fprintln(c.stderr, "yieldshell: serving MCP on stdin/stdout; configure it as a stdio server in an MCP client (see --help). Ctrl-D ends it.")
	}
	err := a.Server.Run(ctx, &linerpc.Transport{Reader: c.stdin, Writer: nopCloser{c.stdout}})
	a.Log.Debug("transport closed; shutting down", "error", err)
	if ctx.Err() != nil || errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

// nopCloser leaves stdout open when the transport closes.
type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// loadApp reads the configuration and builds the app; on failure it says
// why on stderr and returns the exit code.
func (c *cli) loadApp(r app.Role) (*app.App, int) {
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

// newApp builds the app with the loggers for r.
func (c *cli) newApp(cfg *policy.Config, r app.Role) (*app.App, error) {
	return app.New(cfg, app.NewLoggers(c.stderr, c.getenv, r), r, buildVersion())
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

// httpServer serves a over HTTP with hc.
func httpServer(a *app.App, hc *httpserve.Config) *httpserve.Server {
	return &httpserve.Server{MCP: a.Server, Metrics: a.Metrics.Handler(), Health: metrics.Health(), Log: a.Log, Config: hc,
		Public: map[string]http.Handler{app.HumanPath: a.People.Handler()}, OnListen: a.People.Mount}
}

// asTyped is a flag parsing error with the flag named as it was typed:
// the flag package says "-bogus" for "--bogus".
func asTyped(err error, args []string) string {
	msg := err.Error()
	i := strings.LastIndex(msg, " -")
	if i < 0 {
		return msg
	}
	name := msg[i+2:]
	for _, a := range args {
		if a == "--" {
			break
		}
		typed, _, _ := strings.Cut(a, "=")
		if strings.TrimLeft(typed, "-") == name && strings.HasPrefix(typed, "-") {
			if strings.HasPrefix(msg, "flag provided but not defined:") {
				return "unknown flag " + typed
			}
			return msg[:i+1] + typed
		}
	}
	return msg
}

// help prints the help of command (all of it for ""), from usage's text,
// on stdout.
func help(stdout, stderr io.Writer, command string) int {
	var all strings.Builder
	usage(&all)
	if command == "" {
		fmt.Fprint(stdout, all.String())
		return 0
	}
	var b strings.Builder
	in := false
	for _, line := range strings.Split(all.String(), "\n") {
		if f := strings.Fields(line); len(f) > 0 && f[0] == "yieldshell" {
			in = len(f) > 1 && f[1] == command
		} else if strings.TrimSpace(line) == "" || !strings.HasPrefix(line, "     ") {
			in = false
		}
		if in {
			b.WriteString(line + "\n")
		}
	}
	if b.Len() == 0 {
		fmt.Fprintf(stderr, "yieldshell: no command %q; yieldshell help lists them\n", command)
		return 2
	}
	fmt.Fprintf(stdout, "Usage:\n%s", b.String())
	return 0
}

// allVars are the documented variables, for --help.
func allVars() []policy.Var {
	logLevel := policy.Var{Name: "YIELDSHELL_LOG_LEVEL", Default: "INFO",
		Help: "Server log level on stderr: DEBUG, INFO, WARN or ERROR (WARN by default for call and tools)."}
	return slices.Concat(policy.Vars(), []policy.Var{logLevel}, httpserve.Vars(), persistVars())
}

// internalVars are YIELDSHELL_ variables the server sets for its own
// commands (a yieldshell started inside one sees them): not settings, and
// not unknown.
var internalVars = []string{"YIELDSHELL_TAG", "YIELDSHELL_ZDOTDIR", "YIELDSHELL_LOGIN_SHELL"}

// checkEnv warns about YIELDSHELL_ variables that are no setting, naming
// the nearest one; one that looks like a security setting stops a command
// that serves (strict): non-zero is the exit code then.
func (c *cli) checkEnv(strict bool) int {
	known := slices.Clone(internalVars)
	for _, v := range allVars() {
		known = append(known, v.Name)
	}
	warnings, err := policy.UnknownVars(c.environ, known)
	for _, w := range warnings {
		fmt.Fprintln(c.stderr, "yieldshell: warning:", w)
	}
	if err != nil {
		if !strict {
			fmt.Fprintln(c.stderr, "yieldshell: warning:", err)
			return 0
		}
		fmt.Fprintln(c.stderr, "yieldshell:", err)
		return 2
	}
	return 0
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
  yieldshell executor              another host's end of exec's host, which the server starts there
                                   over ssh and speaks to on stdin/stdout (docs/remote.md)
  yieldshell help [COMMAND]        print this help, or a command's (as yieldshell COMMAND --help)
  yieldshell --version             print the version
  yieldshell --help                print this help

Environment variables:
`, buildVersion())
	for _, v := range allVars() {
		def := v.Default
		if def == "" {
			def = "(none)"
		}
		fmt.Fprintf(w, "  %s (default: %s)\n      %s\n", v.Name, def, v.Help)
	}
}
