package executor

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"syscall"
	"time"

	"github.com/yieldshell/yieldshell/internal/execproto"
	"github.com/yieldshell/yieldshell/pty"
)

// DefaultGrace is how long an executor keeps its processes without a
// connection.
const DefaultGrace = 10 * time.Minute

var sessionID = regexp.MustCompile(`^[0-9a-f]{8,64}$`)

// Main is `yieldshell executor`: serve the protocol on stdin and stdout.
// With --session, a connection to an executor of that session that is
// still there (after a dropped connection) is relayed to it instead; a
// new executor listens for such connections in --dir. With --relay, it
// is the local end of an ssh connection instead (see [relay]).
func Main(ctx context.Context, args []string, stdin io.ReadCloser, stdout io.Writer, stderr io.Writer) int {
	fs := flag.NewFlagSet("executor", flag.ContinueOnError)
	fs.SetOutput(stderr)
	session := fs.String("session", "", "the server's session id (hex)")
	dir := fs.String("dir", "", "the executor's private directory (default: the binary's)")
	grace := fs.Duration("grace", DefaultGrace, "how long processes are kept without a connection")
	relaySock := fs.String("relay", "", "local side: connect stdin and stdout to this socket and run the rest")
	verbose := fs.Bool("v", false, "log to stderr")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *relaySock != "" {
		err := relay(*relaySock, fs.Args())
		fmt.Fprintf(stderr, "yieldshell executor: %v\n", err)
		return 1
	}
	log := slog.New(slog.DiscardHandler)
	if *verbose {
		log = slog.New(slog.NewTextHandler(stderr, nil))
	}
	if err := serveMain(ctx, *session, *dir, *grace, stdin, stdout, log); err != nil {
		fmt.Fprintf(stderr, "yieldshell executor: %v\n", err)
		return 1
	}
	return 0
}

func serveMain(ctx context.Context, session, dir string, grace time.Duration, stdin io.ReadCloser, stdout io.Writer, log *slog.Logger) error {
	if session != "" && !sessionID.MatchString(session) {
		return fmt.Errorf("checking --session: %q is not a hex id", session)
	}
	if dir == "" {
		self, err := os.Executable()
		if err != nil {
			return fmt.Errorf("finding the executor's directory: %w", err)
		}
		dir = filepath.Dir(self)
	}
	// A hang-up is not an end: ssh's going away is a dropped connection,
	// and the processes wait for the next one. Nor is a write to the
	// connection that went away (SIGPIPE, which would end a program
	// writing to its stdout without a handler). SIGTERM ends them. The
	// executor says so itself rather than relying on its caller's main:
	// Notify, not Ignore, as an ignored signal would be inherited by every
	// command.
	kept := make(chan os.Signal, 1)
	signal.Notify(kept, syscall.SIGHUP, syscall.SIGPIPE)
	defer signal.Stop(kept)
	ctx, stop := signal.NotifyContext(context.WithoutCancel(ctx), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	var ln net.Listener
	if session != "" {
		sock := filepath.Join(dir, "run", session+".sock")
		if c, err := net.Dial("unix", sock); err == nil {
			return bridge(c, stdin, stdout)
		}
		if err := os.MkdirAll(filepath.Dir(sock), 0o700); err != nil {
			return fmt.Errorf("creating the socket's directory: %w", err)
		}
		_ = os.Remove(sock) // one that answers nothing
		l, err := net.Listen("unix", sock)
		if err != nil {
			return fmt.Errorf("listening for reconnections: %w", err)
		}
		defer os.Remove(sock)
		ln = l
	}
	reaper, err := pty.NewReaper()
	if err != nil {
		return fmt.Errorf("starting reaper: %w", err)
	}
	_ = pty.SetChildSubreaper()
	e := New(reaper, grace, log)
	e.Run(ctx, execproto.NewConn(stdin, stdout, stdin), ln)
	return nil
}

// bridge copies between this connection's stdin and stdout and the
// executor that holds the session, until either side ends.
func bridge(c net.Conn, stdin io.ReadCloser, stdout io.Writer) error {
	done := make(chan error, 2)
	go func() { _, err := io.Copy(c, stdin); done <- err }()
	go func() { _, err := io.Copy(stdout, c); done <- err }()
	err := <-done
	_ = c.Close()
	_ = stdin.Close()
	<-done
	if errors.Is(err, net.ErrClosed) {
		err = nil
	}
	return err
}
