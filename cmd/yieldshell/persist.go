//go:build unix

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yieldshell/yieldshell/internal/console"
	"github.com/yieldshell/yieldshell/internal/daemon"
	"github.com/yieldshell/yieldshell/internal/policy"
)

// persistEnv turns a stdio yieldshell into a bridge to the persistent
// per-user server (as --persist does).
const persistEnv = "YIELDSHELL_PERSIST"

// client reaches this user's persistent server.
func (c *cli) client() (*daemon.Client, error) {
	dir, err := daemon.RuntimeDir(c.getenv)
	if err != nil {
		return nil, err
	}
	return &daemon.Client{Dir: dir, Version: buildVersion(), Settings: daemon.Settings(c.getenv), Notes: c.stderr}, nil
}

// bridgeCmd is stdio yieldshell with persistence on: it copies MCP bytes
// between its stdin/stdout and the persistent server, starting the server
// if needed. When the client goes away only the bridge ends; the
// processes stay with the server.
func bridgeCmd(ctx context.Context, c *cli) int {
	if _, err := daemon.LoadIdle(c.getenv); err != nil {
		fmt.Fprintln(c.stderr, "yieldshell:", err)
		return 2
	}
	cl, err := c.client()
	if err != nil {
		fmt.Fprintln(c.stderr, "yieldshell:", err)
		return 1
	}
	// The server must redact this client's secrets too (issue 30 item 7).
	redaction, err := policy.LoadRedaction(c.getenv)
	if err != nil {
		fmt.Fprintln(c.stderr, "yieldshell:", err)
		return 2
	}
	cl.Secrets = daemon.SecretPrints(redaction, os.Environ())
	conn, err := cl.ConnectOrStart()
	if err != nil {
		fmt.Fprintln(c.stderr, "yieldshell:", err)
		return 1
	}
	defer conn.Close()
	cl.Bridge(ctx, conn, c.stdin, c.stdout)
	return 0
}

// serverCmd is `yieldshell server start|run|stop|status`.
func serverCmd(ctx context.Context, c *cli, args []string) int {
	if len(args) > 0 && args[0] == "run" {
		return serverRun(ctx, c, args[1:])
	}
	sub := map[string]func(*cli, *daemon.Client) int{
		"start": serverStart, "stop": serverStop, "status": serverStatus,
	}
	if len(args) != 1 || sub[args[0]] == nil {
		fmt.Fprintln(c.stderr, "usage: yieldshell server start|stop|status|run")
		return 2
	}
	cl, err := c.client()
	if err != nil {
		fmt.Fprintln(c.stderr, "yieldshell:", err)
		return 1
	}
	return sub[args[0]](c, cl)
}

func serverStart(c *cli, cl *daemon.Client) int {
	w, fresh, err := cl.Start()
	if err != nil {
		fmt.Fprintln(c.stderr, "yieldshell:", err)
		return 1
	}
	if fresh {
		fmt.Fprintf(c.stdout, "started the yieldshell server %s (pid %d); log: %s\n", w.Version, w.PID, w.Log)
	} else {
		fmt.Fprintf(c.stdout, "the yieldshell server %s is already running (pid %d)\n", w.Version, w.PID)
	}
	return 0
}

func serverStop(c *cli, cl *daemon.Client) int {
	w, err := cl.Stop(60 * time.Second)
	if errors.Is(err, daemon.ErrNotRunning) {
		fmt.Fprintln(c.stdout, "no yieldshell server is running")
		return 0
	}
	if err != nil {
		fmt.Fprintln(c.stderr, "yieldshell:", err)
		return 1
	}
	fmt.Fprintf(c.stdout, "stopped the yieldshell server (pid %d) and everything it ran\n", w.PID)
	return 0
}

func serverStatus(c *cli, cl *daemon.Client) int {
	w, err := cl.Status()
	if errors.Is(err, daemon.ErrNotRunning) {
		fmt.Fprintln(c.stdout, "no yieldshell server is running")
		return 3
	}
	if err != nil {
		fmt.Fprintln(c.stderr, "yieldshell:", err)
		return 1
	}
	fmt.Fprintf(c.stdout, "version:   %s\npid:       %d\nup since:  %s\nrunning:   %d processes\nclients:   %d\nsocket:    %s\nlog:       %s\n",
		w.Version, w.PID, w.Started.Format(time.RFC3339), w.Running, w.Clients, filepath.Join(cl.Dir, daemon.SocketName), w.Log)
	return 0
}

// serverRun is `yieldshell server run [--ready-fd N]`: the persistent
// server in the foreground. The ready descriptor, when given, is a pipe to
// the client that started it.
func serverRun(ctx context.Context, c *cli, args []string) int {
	var ready *os.File
	if len(args) == 2 && args[0] == "--ready-fd" {
		if fd, _ := strconv.Atoi(args[1]); fd > 0 {
			ready = os.NewFile(uintptr(fd), "ready")
		}
	} else if len(args) != 0 {
		fmt.Fprintln(c.stderr, "usage: yieldshell server start|stop|status|run")
		return 2
	}
	fail := func(code int, err error) int {
		fmt.Fprintln(c.stderr, "yieldshell server:", err)
		if ready != nil {
			fmt.Fprintln(ready, err)
			ready.Close()
		}
		return code
	}
	idle, err := daemon.LoadIdle(c.getenv)
	if err != nil {
		return fail(2, err)
	}
	dir, err := daemon.RuntimeDir(c.getenv)
	if err != nil {
		return fail(1, err)
	}
	cfg, code, err := c.config()
	if err != nil {
		return fail(code, err)
	}
	lock, err := daemon.LockInstance(dir)
	if err != nil {
		return fail(1, err)
	}
	defer lock.Close()
	a, err := c.newApp(cfg, longRunning)
	if err != nil {
		return fail(1, err)
	}
	s := &daemon.Server{MCP: a.srv, Manager: a.mgr, Log: a.log, Dir: dir, Idle: idle,
		Version: buildVersion(), Settings: daemon.Settings(c.getenv),
		Secrets: daemon.SecretPrints(cfg, os.Environ()), // the Manager's base environment
		Shutdown: func() {
			a.log.Info("ending every process")
			a.shutdown()
		}}
	var rw io.WriteCloser
	if ready != nil {
		rw = ready
	}
	if err := s.Serve(ctx, rw); err != nil {
		a.log.Error("serving", "error", err)
		return 1
	}
	a.log.Info("exiting")
	return 0
}

// persistVars are the environment variables of the persistent server.
func persistVars() []policy.Var {
	return []policy.Var{
		{Name: persistEnv, Default: "0",
			Help: "1 (true, yes, on): stdio yieldshell bridges to the persistent per-user server, as --persist does."},
		{Name: daemon.IdleEnv, Default: strconv.Itoa(int(daemon.DefaultIdle.Milliseconds())),
			Help: "The persistent server exits after this long with no running process and no client; 0: never. Read when it starts."},
	}
}

// psCmd, logsCmd and attachCmd are the commands for a person at a
// terminal (package console), on this user's persistent server.
func psCmd(ctx context.Context, c *cli, args []string) int {
	return console.Ps(ctx, c.terminal(), args)
}

func logsCmd(ctx context.Context, c *cli, args []string) int {
	return console.Logs(ctx, c.terminal(), args)
}

func attachCmd(ctx context.Context, c *cli, args []string) int {
	return console.Attach(ctx, c.terminal(), args)
}

func (c *cli) terminal() *console.Terminal {
	return &console.Terminal{Stdin: c.stdin, Stdout: c.stdout, Stderr: c.stderr, Dial: c.dialSession}
}

func (c *cli) dialSession(ctx context.Context) (*mcp.ClientSession, error) {
	cl, err := c.client()
	if err != nil {
		return nil, err
	}
	conn, err := cl.Connect()
	if errors.Is(err, daemon.ErrNotRunning) {
		return nil, fmt.Errorf("%w: it starts when an MCP client runs yieldshell with --persist or %s=1", err, persistEnv)
	}
	if err != nil {
		return nil, err
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "yieldshell-cli", Version: buildVersion()}, nil).
		Connect(ctx, &mcp.IOTransport{Reader: conn, Writer: conn}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("connecting to the yieldshell server: %w", err)
	}
	return cs, nil
}
