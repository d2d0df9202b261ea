//go:build unix

package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/yieldshell/yieldshell/internal/app"
	"github.com/yieldshell/yieldshell/internal/console"
	"github.com/yieldshell/yieldshell/internal/daemon"
	"github.com/yieldshell/yieldshell/internal/policy"
)

// persistent is the client side of this user's persistent server, for
// the bridge and the commands of package console.
func (c *cli) persistent() (*console.Persistent, int) {
	p, err := console.NewPersistent(console.Terminal{Stdin: c.stdin, Stdout: c.stdout, Stderr: c.stderr}, c.getenv, buildVersion())
	if err != nil {
		fmt.Fprintln(c.stderr, "yieldshell:", err)
		return nil, 1
	}
	return p, 0
}

// bridgeCmd is stdio yieldshell with persistence on (console.Bridge).
func bridgeCmd(ctx context.Context, c *cli) int {
	if _, err := daemon.LoadIdle(c.getenv); err != nil {
		fmt.Fprintln(c.stderr, "yieldshell:", err)
		return 2
	}
	// The server must redact this client's secrets too (issue 30 item 7).
	redaction, err := policy.LoadRedaction(c.getenv)
	if err != nil {
		fmt.Fprintln(c.stderr, "yieldshell:", err)
		return 2
	}
	return withPersistent(c, func(p *console.Persistent) int {
		p.Client.Secrets = daemon.SecretPrints(redaction, os.Environ())
		return p.Bridge(ctx)
	})
}

// withPersistent runs fn with the persistent server's client.
func withPersistent(c *cli, fn func(*console.Persistent) int) int {
	p, code := c.persistent()
	if p == nil {
		return code
	}
	return fn(p)
}

// serverCmd is `yieldshell server start|run|stop|status`.
func serverCmd(ctx context.Context, c *cli, args []string) int {
	if len(args) > 0 && args[0] == "run" {
		return serverRun(ctx, c, args[1:])
	}
	return withPersistent(c, func(p *console.Persistent) int {
		if len(args) == 1 {
			if code, ok := p.Control(args[0]); ok {
				return code
			}
		}
		fmt.Fprintln(c.stderr, "usage: yieldshell server start|stop|status|run")
		return 2
	})
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
	a, err := c.newApp(cfg, app.LongRunning)
	if err != nil {
		return fail(1, err)
	}
	s := &daemon.Server{MCP: a.Server, Manager: a.Manager, Log: a.Log, Dir: dir, Idle: idle,
		Version: buildVersion(), Settings: daemon.Settings(c.getenv),
		Secrets: daemon.SecretPrints(cfg, os.Environ()), // the Manager's base environment
		Shutdown: func() {
			a.Log.Info("ending every process")
			a.Shutdown()
		}}
	var rw io.WriteCloser
	if ready != nil {
		rw = ready
	}
	if err := s.Serve(ctx, rw); err != nil {
		a.Log.Error("serving", "error", err)
		return 1
	}
	a.Log.Info("exiting")
	return 0
}

// persistVars are the environment variables of the persistent server.
func persistVars() []policy.Var {
	return []policy.Var{
		{Name: persistEnv, Default: "0",
			Help: "1 (true, yes, on): stdio yieldshell bridges to the persistent per-user server, as --persist does."},
		{Name: daemon.IdleEnv, Default: strconv.Itoa(int(daemon.DefaultIdle.Milliseconds())),
			Help: "The persistent server exits after this long with no running process and no client; 0: never. Read when it starts."},
		{Name: daemon.RuntimeDirEnv, Default: "/run/user/UID, else /tmp",
			Help: "The directory under which the persistent server keeps its socket and log (in yieldshell/, private). Every client and terminal must agree: set it for all or none."},
	}
}

// psCmd, logsCmd and attachCmd are the commands for a person at a
// terminal (package console), on this user's persistent server.
func psCmd(ctx context.Context, c *cli, args []string) int {
	return onConsole(ctx, c, args, console.Ps)
}

func logsCmd(ctx context.Context, c *cli, args []string) int {
	return onConsole(ctx, c, args, console.Logs)
}

func attachCmd(ctx context.Context, c *cli, args []string) int {
	return onConsole(ctx, c, args, console.Attach)
}

func onConsole(ctx context.Context, c *cli, args []string, fn func(context.Context, *console.Terminal, []string) int) int {
	return withPersistent(c, func(p *console.Persistent) int { return fn(ctx, &p.Terminal, args) })
}
