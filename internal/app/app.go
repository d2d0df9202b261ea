// Package app assembles one server: the MCP surface (package tools) over
// the process manager (package session), with metrics, the log handler
// that tees records to MCP clients, and the middleware every request
// passes. Every mode (stdio, HTTP, the persistent server, one CLI call)
// serves one App and shuts it down the same way; cmd/yieldshell picks the
// mode.
//
// Concurrency: an App owns one goroutine, the tools' registration (and,
// for a long-running server, the orphan sweep it starts), and the
// resources' Hub with its goroutines; Shutdown joins them.
package app

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yieldshell/yieldshell/internal/mcplog"
	"github.com/yieldshell/yieldshell/internal/mcptool"
	"github.com/yieldshell/yieldshell/internal/metrics"
	"github.com/yieldshell/yieldshell/internal/policy"
	"github.com/yieldshell/yieldshell/internal/remote"
	"github.com/yieldshell/yieldshell/internal/resources"
	"github.com/yieldshell/yieldshell/internal/roots"
	"github.com/yieldshell/yieldshell/internal/session"
	"github.com/yieldshell/yieldshell/internal/toolhost"
	"github.com/yieldshell/yieldshell/pty"
	"github.com/yieldshell/yieldshell/tools"
)

// ShutdownTimeout bounds the whole shutdown: every process is sent
// SIGTERM, then SIGKILL after a short grace, well within this.
const ShutdownTimeout = 5 * time.Second

// Role says what an app is for.
type Role int

const (
	// LongRunning serves clients: logs at INFO, and the child subreaper,
	// so descendants that daemonise away from their process group stay
	// our children and can be found and reaped.
	LongRunning Role = iota
	// OneCall answers one CLI call: logs at WARN, so the answer stands
	// alone.
	OneCall
)

// Loggers are the two loggers a server needs: its own records on stderr,
// and the SDK's.
type Loggers struct {
	Stderr slog.Handler
	SDK    *slog.Logger
	sdk    *sdkGate // closes SDK at shutdown (NewLoggers); nil: never closed
}

// NewLoggers writes to w at YIELDSHELL_LOG_LEVEL (from getenv); by
// default INFO for a server and WARN for one CLI call, whose answer should
// stand alone.
func NewLoggers(w io.Writer, getenv func(string) string, r Role) Loggers {
	var level slog.Level
	if err := level.UnmarshalText([]byte(getenv("YIELDSHELL_LOG_LEVEL"))); err != nil {
		level = slog.LevelInfo
		if r == OneCall {
			level = slog.LevelWarn
		}
	}
	gate := &sdkGate{}
	return Loggers{
		Stderr: slog.NewTextHandler(w, &slog.HandlerOptions{Level: level}),
		// The SDK reports every connection at INFO; keep that for debugging.
		SDK: slog.New(quietUndelivered{slog.NewTextHandler(w, &slog.HandlerOptions{Level: max(level, slog.LevelWarn)}), gate}),
		sdk: gate,
	}
}

// App is one server: the MCP surface over the process manager.
type App struct {
	Server  *mcp.Server
	Manager *session.Manager
	Metrics *metrics.Metrics
	Log     *slog.Logger
	// People asks the person at the other end (ask_human's pages,
	// YIELDSHELL_ASK's approvals: people.go).
	People *People

	resources  *resources.Hub // the processes' output as MCP resources
	roots      *roots.Tracker // each client session's roots; nil when no setting uses them
	tempLogDir string         // removed at shutdown; "" when none was made
	sdkLog     *sdkGate       // closed last at shutdown; nil when the caller's loggers have none
	background sync.WaitGroup // registerInBackground
	registered chan struct{}  // closed once every tool is registered
	gc         *gcTuner       // set by registerInBackground; nil when GOGC is set

	// calls is the context every request's handler also runs under;
	// EndCalls cancels it.
	calls    context.Context
	endCalls context.CancelFunc
}

// New builds the server for cfg, reporting version, and logs the
// configuration's warnings.
func New(cfg *policy.Config, l Loggers, r Role, version string) (*App, error) {
	res := resources.New(resources.Options{})
	opts := &mcp.ServerOptions{Instructions: tools.Instructions(cfg.Toolset), Logger: l.SDK,
		// Stated, not inferred from the tools registered so far (see
		// registerInBackground); the tool set never changes.
		Capabilities: &mcp.ServerCapabilities{Logging: &mcp.LoggingCapabilities{}, Tools: &mcp.ToolCapabilities{},
			Resources: resources.Capabilities(), Completions: &mcp.CompletionCapabilities{}},
		SubscribeHandler: res.Subscribe, UnsubscribeHandler: res.Unsubscribe, CompletionHandler: res.Complete}
	rt := clientRoots(cfg, opts, slog.New(l.Stderr))
	srv := mcp.NewServer(&mcp.Implementation{Name: "yieldshell", Title: "yieldshell", Version: version, Icons: tools.Icons()}, opts)
	log := slog.New(mcplog.NewHandler(l.Stderr, srv))
	if r == LongRunning {
		if err := pty.SetChildSubreaper(); err != nil {
			log.Warn("cannot become child subreaper; escaped descendants will be reaped by init", "error", err)
		}
	}
	// The mcp-shell-yeah tools always answer with a log file and a command
	// that follows it, as that server does; without a configured directory
	// they go to a private one that lives as long as the server.
	var tempLogDir string
	if cfg.Log.Dir == "" && cfg.Toolset != policy.ToolsetDefault {
		d, err := session.NewTempDir("logs") // swept by the next server if this one is killed
		if err != nil {
			return nil, fmt.Errorf("making a directory for the shells' logs (or set YIELDSHELL_LOG_DIR): %w", err)
		}
		cfg.Log.Dir, tempLogDir = d, d
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
	res.Start(srv, mgr, cfg)
	a := &App{Server: srv, Manager: mgr, People: pp, Log: log, Metrics: m, resources: res, roots: rt, tempLogDir: tempLogDir, sdkLog: l.sdk, registered: make(chan struct{})}
	a.calls, a.endCalls = context.WithCancel(context.Background())
	srv.AddReceivingMiddleware(mcptool.RecoverPanics(log), mcptool.KindOnlyErrors(), m.Middleware(), a.endWithServer(), a.awaitTools(),
		mcptool.PlainArguments(), resources.NoTemplate(), newResourceLinks(cfg.ResourceLinks).Middleware())
	a.registerInBackground(cfg, r, version)
	for _, w := range cfg.Warnings() {
		log.Warn(w)
	}
	return a, nil
}

// clientRoots returns the tracker of the clients' roots and has the
// server ask for them, unless the operator's settings leave them no use
// (package roots, policy's roots.go).
func clientRoots(cfg *policy.Config, opts *mcp.ServerOptions, log *slog.Logger) *roots.Tracker {
	if !cfg.UsesRoots() {
		return nil
	}
	rt := roots.New(log)
	opts.InitializedHandler, opts.RootsListChangedHandler = rt.Initialized, rt.ListChanged
	return rt
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
	self, _ := os.Executable() // without it, a host that lacks yieldshell is refused
	opts.Hosts = remote.NewHosts(remote.Config{Allowed: cfg.Remote.Hosts, SSH: cfg.Remote.SSH, Self: self, Log: log})
	return session.NewManager(cfg, opts)
}

// registerInBackground registers the tools, and then, for a server that
// serves, starts the orphan sweep. Building and resolving the tools'
// schemas takes more CPU than the rest of start-up together (12 ms for the
// default toolset on an idle core, 20-35 ms in a new process on a busy
// machine), and the sweep reads every process on the machine: neither may
// hold up the answer to initialize, whose time clients count against a
// server's start. Every other request waits for the tools (awaitTools).
// Shutdown joins the goroutine.
func (a *App) registerInBackground(cfg *policy.Config, r Role, version string) {
	a.background.Go(func() {
		// With a Manager and a Config given, Add builds nothing and
		// cannot fail; the Manager stays the App's to shut down.
		if _, err := tools.Add(a.Server, toolhost.Use(a.Manager, cfg, version, a.People.ask, a.roots)); err != nil {
			a.Log.Error("adding the tools", "error", err)
		}
		close(a.registered)
		// Once start-up's garbage (the tools' schemas) is made: tuned
		// before, the collector ran through it and slowed the answer to
		// initialize.
		a.gc = startGCTuner()
		if r == LongRunning {
			// Only a server that serves judges what other servers left
			// behind; the Manager owns the sweep and Shutdown joins it.
			a.Manager.SweepOrphans()
		}
	})
}

// awaitTools holds every request but initialize until the tools are
// registered, so that none sees part of the tool set. The notifications
// that have the server ask for the client's roots pass: they touch no
// tool, and the roots are then known by the first call.
func (a *App) awaitTools() mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method != "initialize" && method != "notifications/initialized" && method != "notifications/roots/list_changed" {
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

// endWithServer runs every handler under a context that EndCalls also
// cancels, and refuses a tool call that comes after it.
func (a *App) endWithServer() mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/call" && a.calls.Err() != nil {
				return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{
					&mcp.TextContent{Text: "the server is stopping: nothing was done"}}}, nil
			}
			ctx, cancel := context.WithCancel(ctx)
			defer cancel()
			defer context.AfterFunc(a.calls, cancel)()
			return next(ctx, method, req)
		}
	}
}

// EndCalls cancels every request in flight, and every later one, as a
// client's cancellation does: each blocking call answers at once and says
// so (an exec or wait with yield_reason "cancelled", its process left
// running for Shutdown to end). A server that is told to stop calls it
// first, so that no call holds the stop up for its yield_ms.
func (a *App) EndCalls() { a.endCalls() }

// Shutdown ends every call in flight (EndCalls) and every process the
// server started.
func (a *App) Shutdown() {
	a.EndCalls()
	sctx, cancel := context.WithTimeout(context.Background(), ShutdownTimeout)
	defer cancel()
	a.background.Wait() // registration: the sweep must start before Shutdown, or not at all
	a.gc.Stop()
	if err := a.People.close(sctx); err != nil {
		a.Log.Warn("closing the pages for people", "error", err)
	}
	a.resources.Close()
	a.Manager.Shutdown(sctx)
	a.roots.Close()
	if a.tempLogDir != "" {
		if err := os.RemoveAll(a.tempLogDir); err != nil {
			a.Log.Warn("removing the shells' log directory", "error", err)
		}
	}
	if a.sdkLog != nil {
		a.sdkLog.close()
	}
}
