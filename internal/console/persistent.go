//go:build unix

package console

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yieldshell/yieldshell/internal/daemon"
)

// Persistent reaches this user's persistent server from a person's
// terminal or an MCP client's stdio.
type Persistent struct {
	Terminal
	Client *daemon.Client
}

// NewPersistent is t with the client of this user's persistent server
// (getenv names its runtime directory and settings) of this version.
func NewPersistent(t Terminal, getenv func(string) string, version string) (*Persistent, error) {
	dir, err := daemon.RuntimeDir(getenv)
	if err != nil {
		return nil, err
	}
	p := &Persistent{Terminal: t, Client: &daemon.Client{Dir: dir, Version: version,
		Settings: daemon.Settings(getenv), Notes: t.Stderr}}
	p.Dial = p.dial
	return p, nil
}

// Bridge is stdio yieldshell with persistence on: it copies MCP bytes
// between its stdin/stdout and the persistent server, starting the server
// if needed. When the client goes away only the bridge ends; the
// processes stay with the server.
func (p *Persistent) Bridge(ctx context.Context) int {
	conn, err := p.Client.ConnectOrStart()
	if err != nil {
		fmt.Fprintln(p.Stderr, "yieldshell:", err)
		return 1
	}
	defer conn.Close()
	p.Client.Bridge(ctx, conn, p.Stdin, p.Stdout)
	return 0
}

// Control is `yieldshell server start|stop|status`; ok is false for
// another word.
func (p *Persistent) Control(what string) (code int, ok bool) {
	switch what {
	case "start":
		return p.start(), true
	case "stop":
		return p.stop(), true
	case "status":
		return p.status(), true
	}
	return 0, false
}

func (p *Persistent) start() int {
	w, fresh, err := p.Client.Start()
	if err != nil {
		fmt.Fprintln(p.Stderr, "yieldshell:", err)
		return 1
	}
	if fresh {
		fmt.Fprintf(p.Stdout, "started the yieldshell server %s (pid %d); log: %s\n", w.Version, w.PID, w.Log)
	} else {
		fmt.Fprintf(p.Stdout, "the yieldshell server %s is already running (pid %d)\n", w.Version, w.PID)
	}
	return 0
}

func (p *Persistent) stop() int {
	w, err := p.Client.Stop(60 * time.Second)
	if errors.Is(err, daemon.ErrNotRunning) {
		fmt.Fprintln(p.Stdout, "no yieldshell server is running")
		return 0
	}
	if err != nil {
		fmt.Fprintln(p.Stderr, "yieldshell:", err)
		return 1
	}
	fmt.Fprintf(p.Stdout, "stopped the yieldshell server (pid %d) and everything it ran\n", w.PID)
	return 0
}

func (p *Persistent) status() int {
	w, err := p.Client.Status()
	if errors.Is(err, daemon.ErrNotRunning) {
		fmt.Fprintln(p.Stdout, "no yieldshell server is running")
		return 3
	}
	if err != nil {
		fmt.Fprintln(p.Stderr, "yieldshell:", err)
		return 1
	}
	fmt.Fprintf(p.Stdout, "version:   %s\npid:       %d\nup since:  %s\nrunning:   %d processes\nclients:   %d\nsocket:    %s\nlog:       %s\n",
		w.Version, w.PID, w.Started.Format(time.RFC3339), w.Running, w.Clients, filepath.Join(p.Client.Dir, daemon.SocketName), w.Log)
	return 0
}

// dial opens an MCP client session to the running persistent server,
// never starting one: ps, logs and attach would have nothing to see.
func (p *Persistent) dial(ctx context.Context) (*mcp.ClientSession, error) {
	conn, err := p.Client.Connect()
	if errors.Is(err, daemon.ErrNotRunning) {
		return nil, fmt.Errorf("%w: it starts when an MCP client runs yieldshell with --persist or %s=1", err, daemon.PersistEnv)
	}
	if err != nil {
		return nil, err
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "yieldshell-cli", Version: p.Client.Version}, nil).
		Connect(ctx, &mcp.IOTransport{Reader: conn, Writer: conn}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("connecting to the yieldshell server: %w", err)
	}
	return cs, nil
}
