//go:build unix

package main

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/yieldshell/yieldshell/policy"
)

// persistEnv turns a stdio yieldshell into a bridge to the persistent
// per-user server (as --persist does).
const persistEnv = "YIELDSHELL_PERSIST"

// errNotRunning: no server listens on the socket.
var errNotRunning = errors.New("no yieldshell server is running for this user")

// dialServer connects to the server in dir, says hello and reads the
// welcome. A server that refuses the hello still answers with a welcome
// (OK false): the caller decides what to do.
func dialServer(dir string, h hello) (*net.UnixConn, *bufio.Reader, welcome, error) {
	var w welcome
	c, err := net.DialUnix("unix", nil, &net.UnixAddr{Name: filepath.Join(dir, socketName), Net: "unix"})
	if err != nil {
		if errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ECONNREFUSED) {
			return nil, nil, w, errNotRunning
		}
		return nil, nil, w, fmt.Errorf("connecting to the yieldshell server: %w", err)
	}
	// Only this user can create a socket in the private directory; the
	// check makes sure of it.
	if err := admitPeer(c, uint32(os.Getuid())); err != nil {
		c.Close()
		return nil, nil, w, fmt.Errorf("connecting to the yieldshell server: %w", err)
	}
	h.Version = buildVersion()
	b, _ := json.Marshal(h)
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	br := bufio.NewReader(c)
	line := []byte(nil)
	if _, err = c.Write(append(b, '\n')); err == nil {
		line, err = br.ReadBytes('\n')
	}
	if err == nil {
		err = json.Unmarshal(line, &w)
	}
	if err != nil {
		c.Close()
		return nil, nil, w, fmt.Errorf("greeting the yieldshell server: %w", err)
	}
	_ = c.SetDeadline(time.Time{})
	return c, br, w, nil
}

// startServer starts the persistent server unless one runs, and returns
// its welcome. Two clients starting at once are serialised by a lock, and
// the second finds the first one's server. The server is started detached
// (its own session, stdio on /dev/null, stderr appended to the log file),
// so it outlives whoever started it.
func startServer(dir string) (welcome, bool, error) {
	lock, err := lockFile(filepath.Join(dir, startLock))
	if err != nil {
		return welcome{}, false, fmt.Errorf("starting the server: %w", err)
	}
	defer lock.Close()
	if c, _, w, err := dialServer(dir, hello{Op: "status"}); err == nil {
		c.Close()
		return w, false, nil
	} else if !errors.Is(err, errNotRunning) {
		return welcome{}, false, err
	}
	exe, err := os.Executable()
	if err != nil {
		return welcome{}, false, fmt.Errorf("starting the server: %w", err)
	}
	logPath := filepath.Join(dir, serverLogName)
	if fi, err := os.Stat(logPath); err == nil && fi.Size() > logRotateSize {
		_ = os.Rename(logPath, logPath+".1")
	}
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return welcome{}, false, fmt.Errorf("starting the server: opening its log: %w", err)
	}
	defer logf.Close()
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		return welcome{}, false, fmt.Errorf("starting the server: %w", err)
	}
	defer devnull.Close()
	pr, pw, err := os.Pipe()
	if err != nil {
		return welcome{}, false, fmt.Errorf("starting the server: %w", err)
	}
	defer pr.Close()
	cmd := exec.Command(exe, "server", "run", "--ready-fd", "3")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = devnull, devnull, logf
	cmd.ExtraFiles = []*os.File{pw}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	err = cmd.Start()
	pw.Close()
	if err != nil {
		return welcome{}, false, fmt.Errorf("starting the server: %w", err)
	}
	// Not waited for: it lives on, and init (or the nearest subreaper)
	// reaps it once this process has gone.
	_ = cmd.Process.Release()
	_ = pr.SetReadDeadline(time.Now().Add(30 * time.Second))
	msg, _ := io.ReadAll(pr)
	if s := strings.TrimSpace(string(msg)); s != "ok" {
		if s == "" {
			s = "it exited before it was ready"
		}
		return welcome{}, false, fmt.Errorf("starting the server: %s (see %s)", s, logPath)
	}
	c, _, w, err := dialServer(dir, hello{Op: "status"})
	if err != nil {
		return welcome{}, false, err
	}
	c.Close()
	return w, true, nil
}

// stopServer asks the server to end everything it runs and exit, and
// waits until it has gone (its end of the connection closes at exit).
func stopServer(dir string, ifIdle bool, timeout time.Duration) (welcome, error) {
	c, br, w, err := dialServer(dir, hello{Op: "stop", IfIdle: ifIdle})
	if err != nil {
		return w, err
	}
	defer c.Close()
	if !w.OK {
		return w, fmt.Errorf("stopping the server: %s", w.Error)
	}
	_ = c.SetReadDeadline(time.Now().Add(timeout))
	if _, err := io.Copy(io.Discard, br); err != nil {
		return w, fmt.Errorf("stopping the server (pid %d): still running after %s: %w", w.PID, timeout, err)
	}
	return w, nil
}

// settings fingerprints the configuration variables that are set: name ->
// a hash of the value (the values themselves may be secrets' patterns, and
// need not travel).
func settings(getenv func(string) string) map[string]string {
	m := map[string]string{}
	for _, v := range append(policy.Vars(), policy.Var{Name: idleEnv}) {
		if val := getenv(v.Name); val != "" {
			h := sha256.Sum256([]byte(val))
			m[v.Name] = hex.EncodeToString(h[:8])
		}
	}
	return m
}

// settingsDiffer names the variables set differently in a and b.
func settingsDiffer(a, b map[string]string) []string {
	var names []string
	for k, v := range a {
		if b[k] != v {
			names = append(names, k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			names = append(names, k)
		}
	}
	slices.Sort(names)
	return names
}

// versionError is the refusal to mix versions.
func versionError(w welcome) error {
	return fmt.Errorf("the yieldshell server running for this user is version %s (pid %d, %d running processes, %d clients) and this yieldshell is version %s; versions are never mixed. "+
		"Run the client with the yieldshell binary of version %s, or end that server and everything it runs with `yieldshell server stop` and restart the client",
		w.Version, w.PID, w.Running, w.Clients, buildVersion(), w.Version)
}

// connectMCP opens a connection that carries MCP to the server. With
// autostart it starts the server when none runs, and replaces an idle
// server of another version; a busy one of another version is refused.
func connectMCP(dir string, autostart bool, stderr io.Writer) (*net.UnixConn, *bufio.Reader, error) {
	started, replaced := false, false
	for {
		c, br, w, err := dialServer(dir, hello{Op: "mcp"})
		switch {
		case errors.Is(err, errNotRunning) && autostart && !started:
			w, fresh, err := startServer(dir)
			if err != nil {
				return nil, nil, err
			}
			if fresh {
				fmt.Fprintf(stderr, "yieldshell: started the persistent server (pid %d, log %s)\n", w.PID, w.Log)
			}
			started = true
			continue
		case err != nil:
			return nil, nil, err
		case w.OK:
			if diff := settingsDiffer(settings(os.Getenv), w.Settings); autostart && len(diff) > 0 {
				fmt.Fprintf(stderr, "yieldshell: the persistent server (pid %d) runs with the settings of the client that started it, which differ from this one's in %s; "+
					"to apply these, end it and everything it runs with `yieldshell server stop` and restart this client\n", w.PID, strings.Join(diff, ", "))
			}
			return c, br, nil
		}
		c.Close()
		if w.Version == buildVersion() {
			return nil, nil, fmt.Errorf("connecting to the yieldshell server: %s", w.Error)
		}
		if !autostart || replaced || w.Running > 0 || w.Clients > 0 {
			return nil, nil, versionError(w)
		}
		fmt.Fprintf(stderr, "yieldshell: replacing the idle persistent server of version %s (pid %d) with version %s\n", w.Version, w.PID, buildVersion())
		if _, err := stopServer(dir, true, 30*time.Second); err != nil {
			return nil, nil, fmt.Errorf("%w (%w)", versionError(w), err)
		}
		replaced, started = true, false
	}
}

// runBridge is stdio yieldshell with persistence on: it copies MCP bytes
// between its stdin/stdout and the persistent server, starting the server
// if needed. When the client goes away only the bridge ends; the
// processes stay with the server.
func runBridge(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer) int {
	dir, err := runtimeDir(os.Getenv)
	if err != nil {
		fmt.Fprintln(stderr, "yieldshell:", err)
		return 1
	}
	if _, err := loadIdle(os.Getenv); err != nil {
		fmt.Fprintln(stderr, "yieldshell:", err)
		return 2
	}
	c, br, err := connectMCP(dir, true, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "yieldshell:", err)
		return 1
	}
	defer c.Close()
	up, down := make(chan struct{}), make(chan struct{})
	// The copy from stdin cannot be interrupted (stdin is usually a
	// blocking descriptor); it ends with the process.
	go func() {
		_, _ = io.Copy(c, stdin)
		_ = c.CloseWrite() // the server's session sees EOF and ends
		close(up)
	}()
	go func() {
		_, _ = io.Copy(stdout, br)
		close(down)
	}()
	select {
	case <-down: // the server closed the connection
	case <-ctx.Done():
	case <-up: // the client went away: let the last answers through
		t := time.NewTimer(5 * time.Second)
		select {
		case <-down:
		case <-t.C:
		}
		t.Stop()
	}
	return 0
}

// serverCmd is `yieldshell server start|run|stop|status`.
func serverCmd(ctx context.Context, args []string, newLogs func() loggers, stdout, stderr io.Writer) int {
	sub := ""
	if len(args) > 0 {
		sub = args[0]
	}
	usageErr := func() int {
		fmt.Fprintln(stderr, "usage: yieldshell server start|stop|status|run")
		return 2
	}
	if sub == "run" {
		fd := 0
		if len(args) == 3 && args[1] == "--ready-fd" {
			fd, _ = strconv.Atoi(args[2])
		} else if len(args) != 1 {
			return usageErr()
		}
		return runServer(ctx, fd, newLogs(), os.Getenv, stderr)
	}
	if len(args) != 1 {
		return usageErr()
	}
	dir, err := runtimeDir(os.Getenv)
	if err != nil {
		fmt.Fprintln(stderr, "yieldshell:", err)
		return 1
	}
	switch sub {
	case "start":
		w, fresh, err := startServer(dir)
		if err != nil {
			fmt.Fprintln(stderr, "yieldshell:", err)
			return 1
		}
		if fresh {
			fmt.Fprintf(stdout, "started the yieldshell server %s (pid %d); log: %s\n", w.Version, w.PID, w.Log)
		} else {
			fmt.Fprintf(stdout, "the yieldshell server %s is already running (pid %d)\n", w.Version, w.PID)
		}
	case "stop":
		w, err := stopServer(dir, false, 60*time.Second)
		if errors.Is(err, errNotRunning) {
			fmt.Fprintln(stdout, "no yieldshell server is running")
			return 0
		}
		if err != nil {
			fmt.Fprintln(stderr, "yieldshell:", err)
			return 1
		}
		fmt.Fprintf(stdout, "stopped the yieldshell server (pid %d) and everything it ran\n", w.PID)
	case "status":
		c, _, w, err := dialServer(dir, hello{Op: "status"})
		if errors.Is(err, errNotRunning) {
			fmt.Fprintln(stdout, "no yieldshell server is running")
			return 3
		}
		if err != nil {
			fmt.Fprintln(stderr, "yieldshell:", err)
			return 1
		}
		c.Close()
		fmt.Fprintf(stdout, "version:   %s\npid:       %d\nup since:  %s\nrunning:   %d processes\nclients:   %d\nsocket:    %s\nlog:       %s\n",
			w.Version, w.PID, w.Started.Format(time.RFC3339), w.Running, w.Clients, filepath.Join(dir, socketName), w.Log)
	default:
		return usageErr()
	}
	return 0
}
