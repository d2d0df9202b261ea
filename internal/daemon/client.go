//go:build unix

package daemon

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// ErrNotRunning means no server listens on the socket.
var ErrNotRunning = errors.New("no yieldshell server is running for this user")

// Client reaches the persistent server of this user.
type Client struct {
	Dir     string // the runtime directory (see [RuntimeDir])
	Version string // this binary's version: servers of another are refused or replaced
	// Settings are this client's configuration (see [Settings]);
	// ConnectOrStart bridges only to a server with the same.
	Settings map[string]string
	// Secrets are this client's secrets (see [SecretPrints]);
	// ConnectOrStart bridges only to a server that redacts them all.
	Secrets map[string]string
	// Notes gets a line for what the client did on its own (started or
	// replaced the server) and for differing settings.
	Notes io.Writer

	// GreetTimeout bounds the hello and welcome (default 10 s);
	// StartTimeout how long a started server may take to be ready (30 s);
	// DrainTimeout how long [Client.Bridge] lets the last answers through
	// once the client has gone (5 s).
	GreetTimeout, StartTimeout, DrainTimeout time.Duration
}

// Conn is a connection to the server after its welcome. Reads go through
// the buffer that read the welcome, so no byte that followed it is lost.
type Conn struct {
	Welcome Welcome
	c       *net.UnixConn
	r       *bufio.Reader
}

func (c *Conn) Read(p []byte) (int, error)  { return c.r.Read(p) }
func (c *Conn) Write(p []byte) (int, error) { return c.c.Write(p) }
func (c *Conn) Close() error                { return c.c.Close() }

// CloseWrite tells the server this side has nothing more to send.
func (c *Conn) CloseWrite() error { return c.c.CloseWrite() }

// Dial connects to the server, says h (with this client's version) and
// reads the welcome. A server that refuses the hello still answers: the
// connection is returned with Welcome.OK false, and the caller decides.
func (cl *Client) Dial(h Hello) (*Conn, error) {
	c, err := net.DialUnix("unix", nil, &net.UnixAddr{Name: filepath.Join(cl.Dir, SocketName), Net: "unix"})
	if err != nil {
		if errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ECONNREFUSED) {
			return nil, ErrNotRunning
		}
		return nil, fmt.Errorf("connecting to the yieldshell server: %w", err)
	}
	// Only this user can create a socket in the private directory; the
	// check makes sure of it.
	if err := admitPeer(c, uint32(os.Getuid())); err != nil {
		c.Close()
		return nil, fmt.Errorf("connecting to the yieldshell server: %w", err)
	}
	h.Version = cl.Version
	conn := &Conn{c: c, r: bufio.NewReader(c)}
	if err := conn.greet(h, cmp.Or(cl.GreetTimeout, 10*time.Second)); err != nil {
		c.Close()
		return nil, fmt.Errorf("greeting the yieldshell server: %w", err)
	}
	return conn, nil
}

func (c *Conn) greet(h Hello, timeout time.Duration) error {
	b, _ := json.Marshal(h)
	_ = c.c.SetDeadline(time.Now().Add(timeout))
	if _, err := c.c.Write(append(b, '\n')); err != nil {
		return err
	}
	line, err := c.r.ReadBytes('\n')
	if err != nil {
		return err
	}
	if err := json.Unmarshal(line, &c.Welcome); err != nil {
		return err
	}
	return c.c.SetDeadline(time.Time{})
}

// Status returns the running server's welcome, or [ErrNotRunning].
func (cl *Client) Status() (Welcome, error) {
	c, err := cl.Dial(Hello{Op: OpStatus})
	if err != nil {
		return Welcome{}, err
	}
	c.Close()
	return c.Welcome, nil
}

// Start starts the persistent server unless one runs, and returns its
// welcome and whether this call started it. Two clients starting at once
// are serialised by a lock, and the second finds the first one's server.
// The server is started detached (its own session, stdio on /dev/null,
// stderr appended to the log file), so it outlives whoever started it.
func (cl *Client) Start() (w Welcome, started bool, err error) {
	lock, err := lockFile(filepath.Join(cl.Dir, startLock))
	if err != nil {
		return Welcome{}, false, fmt.Errorf("starting the server: %w", err)
	}
	defer lock.Close()
	if w, err := cl.Status(); !errors.Is(err, ErrNotRunning) {
		return w, false, err
	}
	if err := cl.spawn(); err != nil {
		return Welcome{}, false, err
	}
	w, err = cl.Status()
	return w, err == nil, err
}

// spawn starts `yieldshell server run` detached and waits until it says it
// is ready, or why it is not.
func (cl *Client) spawn() error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("starting the server: %w", err)
	}
	logPath := filepath.Join(cl.Dir, serverLogName)
	if fi, err := os.Stat(logPath); err == nil && fi.Size() > logRotateSize {
		_ = os.Rename(logPath, logPath+".1")
	}
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("starting the server: opening its log: %w", err)
	}
	defer logf.Close()
	pr, pw, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("starting the server: %w", err)
	}
	defer pr.Close()
	cmd := exec.Command(exe, "server", "run", "--ready-fd", "3")
	cmd.Stderr = logf // stdin and stdout: /dev/null
	cmd.ExtraFiles = []*os.File{pw}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	err = cmd.Start()
	pw.Close()
	if err != nil {
		return fmt.Errorf("starting the server: %w", err)
	}
	// Reaped here while this process lives (a bridge can outlive the
	// server it started, and a dead server left unreaped would look alive
	// to the next one); by init, or the nearest subreaper, after. The
	// goroutine ends when the server does.
	go func() { _ = cmd.Wait() }()
	_ = pr.SetReadDeadline(time.Now().Add(cmp.Or(cl.StartTimeout, 30*time.Second)))
	msg, _ := io.ReadAll(pr)
	if s := strings.TrimSpace(string(msg)); s != "ok" {
		if s == "" {
			s = "it exited before it was ready"
		}
		return fmt.Errorf("starting the server: %s (see %s)", s, logPath)
	}
	return nil
}

// Stop asks the server to end everything it runs and exit, and waits up to
// timeout until it has gone (its end of the connection closes at exit).
func (cl *Client) Stop(timeout time.Duration) (Welcome, error) {
	return cl.stop(Hello{Op: OpStop}, timeout)
}

// StopIfIdle is [Client.Stop] for a server with no running process and no
// client; a busy server refuses.
func (cl *Client) StopIfIdle(timeout time.Duration) (Welcome, error) {
	return cl.stop(Hello{Op: OpStop, IfIdle: true}, timeout)
}

func (cl *Client) stop(h Hello, timeout time.Duration) (Welcome, error) {
	c, err := cl.Dial(h)
	if err != nil {
		return Welcome{}, err
	}
	defer c.Close()
	w := c.Welcome
	if !w.OK {
		return w, fmt.Errorf("stopping the server: %s", w.Error)
	}
	_ = c.c.SetReadDeadline(time.Now().Add(timeout))
	if _, err := io.Copy(io.Discard, c); err != nil {
		return w, fmt.Errorf("stopping the server (pid %d): still running after %s: %w", w.PID, timeout, err)
	}
	return w, nil
}

// versionError is the refusal to mix versions.
func (cl *Client) versionError(w Welcome) error {
	return fmt.Errorf("the yieldshell server running for this user is version %s (pid %d, %d running processes, %d clients) and this yieldshell is version %s; versions are never mixed. "+
		"Run the client with the yieldshell binary of version %s, or end that server and everything it runs with `yieldshell server stop` and restart the client",
		w.Version, w.PID, w.Running, w.Clients, cl.Version, w.Version)
}

// Connect opens a connection that carries MCP to the running server, for
// looking at what it runs whatever its settings; a server of another
// version is refused.
func (cl *Client) Connect() (*Conn, error) {
	c, err := cl.Dial(Hello{Op: OpMCP})
	if err != nil {
		return nil, err
	}
	if c.Welcome.OK {
		return c, nil
	}
	c.Close()
	return nil, cl.refusal(c.Welcome)
}

func (cl *Client) refusal(w Welcome) error {
	switch {
	case w.Version != cl.Version:
		return cl.versionError(w)
	case len(w.Differ) > 0:
		return cl.settingsError(w)
	case len(w.Unredacted) > 0:
		return cl.secretsError(w)
	}
	return fmt.Errorf("connecting to the yieldshell server: %s", w.Error)
}

// ConnectOrStart is [Client.Connect] that starts the server when none
// runs, and replaces an idle server of another version or other settings
// (see [Settings]); a busy one is refused, saying what differs.
func (cl *Client) ConnectOrStart() (*Conn, error) {
	started, replaced := false, false
	for {
		settings := cl.Settings
		if settings == nil {
			settings = map[string]string{} // nil would skip the check
		}
		secrets := cl.Secrets
		if secrets == nil {
			secrets = map[string]string{}
		}
		c, err := cl.Dial(Hello{Op: OpMCP, Settings: settings, Secrets: secrets})
		switch {
		case errors.Is(err, ErrNotRunning) && !started:
			w, fresh, err := cl.Start()
			if err != nil {
				return nil, err
			}
			if fresh {
				fmt.Fprintf(cl.Notes, "yieldshell: started the persistent server (pid %d, log %s)\n", w.PID, w.Log)
			}
			started = true
			continue
		case err != nil:
			return nil, err
		case c.Welcome.OK:
			return c, nil
		}
		c.Close()
		w := c.Welcome
		refusal := cl.refusal(w)
		if w.Version == cl.Version && len(w.Differ) == 0 && len(w.Unredacted) == 0 {
			return nil, refusal // neither version, settings nor secrets: nothing to replace
		}
		if replaced || w.Running > 0 || w.Clients > 0 {
			return nil, refusal
		}
		fmt.Fprintf(cl.Notes, "yieldshell: replacing the idle persistent server (pid %d, version %s) with one of this client's version, settings and secrets\n", w.PID, w.Version)
		if _, err := cl.StopIfIdle(30 * time.Second); err != nil {
			return nil, fmt.Errorf("%w (%w)", refusal, err)
		}
		replaced, started = true, false
	}
}

// settingsError is the refusal to bridge to a server whose settings differ
// from this client's: its policy may be looser than the one the client was
// configured with, and a bridge never fails open.
func (cl *Client) settingsError(w Welcome) error {
	return fmt.Errorf("the yieldshell server running for this user (pid %d, %d running processes, %d clients) was started with other settings than this client's: %s differ, and its commands would run under its rules, not this client's. "+
		"Give this client the same settings, or end that server and everything it runs with `yieldshell server stop` and restart the client",
		w.PID, w.Running, w.Clients, strings.Join(w.Differ, ", "))
}

// secretsError is the refusal to bridge to a server that would not redact
// a secret of this client's environment: it was started from another
// environment, and its processes would show the value. It names the
// variables, never their values.
func (cl *Client) secretsError(w Welcome) error {
	return fmt.Errorf("the yieldshell server running for this user (pid %d, %d running processes, %d clients) was started without the value of %s, which this client's environment holds as a secret (the name matches YIELDSHELL_REDACT_ENV_REGEX): its processes would show that value unredacted, so this client was not connected. "+
		"End that server and everything it runs with `yieldshell server stop` and restart the client (a server started from this environment redacts it), or start the client without %s",
		w.PID, w.Running, w.Clients, strings.Join(w.Unredacted, ", "), strings.Join(w.Unredacted, ", "))
}

// Bridge copies MCP bytes between a stdio client and c until the server
// closes the connection, ctx ends, or the client goes away (then the last
// answers still get through, for DrainTimeout).
func (cl *Client) Bridge(ctx context.Context, c *Conn, stdin io.Reader, stdout io.Writer) {
	up, down := make(chan struct{}), make(chan struct{})
	// The copy from stdin cannot be interrupted (stdin is usually a
	// blocking descriptor); it ends with the process.
	go func() {
		_, _ = io.Copy(c, stdin)
		_ = c.CloseWrite() // the server's session sees EOF and ends
		close(up)
	}()
	go func() {
		_, _ = io.Copy(stdout, c)
		close(down)
	}()
	select {
	case <-down: // the server closed the connection
	case <-ctx.Done():
	case <-up: // the client went away: let the last answers through
		t := time.NewTimer(cmp.Or(cl.DrainTimeout, 5*time.Second))
		select {
		case <-down:
		case <-t.C:
		}
		t.Stop()
	}
}
