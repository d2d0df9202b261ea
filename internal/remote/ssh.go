package remote

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/yieldshell/yieldshell/internal/session"
)

// connectWait is how long a dial waits for ssh before it tells the agent
// to look at the ssh process (it may ask a question).
const connectWait = 30 * time.Second

// sshDialer connects over the user's own ssh: a local process of the
// Manager (`yieldshell executor --relay SOCK -- ssh ... host SCRIPT`)
// whose terminal gets ssh's questions and whose stdin and stdout are a
// socket to this server; SCRIPT starts the executor on the host, copying
// this binary there first when it lacks it.
type sshDialer struct {
	host string
	cfg  *Config
	m    *session.Manager

	mu      sync.Mutex
	pending *attempt // an ssh that asked a question: the next dial waits for it
}

// attempt is one ssh on its way to a connection.
type attempt struct {
	ln    net.Listener
	dir   string
	proc  *session.Process
	first chan firstLine // the relay's connection, once the script spoke
}

// firstLine is the relay's connection and the script's first line: until
// it comes, ssh may be asking its questions.
type firstLine struct {
	c    net.Conn
	line string
	err  error
}

func (d *sshDialer) Dial(ctx context.Context, sessionID string) (io.ReadWriteCloser, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	a := d.pending
	d.pending = nil
	if a == nil || a.proc.Ended() {
		if a != nil {
			a.close()
		}
		var err error
		if a, err = d.start(ctx, sessionID); err != nil {
			return nil, err
		}
	}
	f, err := d.await(ctx, a)
	if err != nil {
		return nil, err
	}
	a.close()
	c := f.c
	rwc, err := d.bootstrap(c, f.line, f.err)
	if err != nil {
		_ = c.Close()
		if tail := sshSaid(a.proc); tail != "" {
			err = fmt.Errorf("%w (ssh, %s: %s)", err, a.proc.ID, tail)
		}
		return nil, err
	}
	return rwc, nil
}

// start listens on a private socket and starts the relay with ssh.
func (d *sshDialer) start(ctx context.Context, sessionID string) (*attempt, error) {
	dir, err := session.NewTempDir("ssh")
	if err != nil {
		return nil, fmt.Errorf("creating the relay's directory: %w", err)
	}
	sock := filepath.Join(dir, "s")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("listening for the relay: %w", err)
	}
	a := &attempt{ln: ln, dir: dir, first: make(chan firstLine, 1)}
	go func() { // ends when the listener closes, or ssh ends
		if c, err := ln.Accept(); err == nil {
			line, err := readLine(c)
			a.first <- firstLine{c, line, err}
		}
	}()
	sum, size, err := selfHash(d.cfg.Self)
	if err != nil {
		a.close()
		return nil, err
	}
	argv := append([]string{d.cfg.Self, "executor", "--relay", sock, "--"}, d.cfg.SSH...)
	argv = append(argv, "-T", "-o", "ServerAliveInterval=15", "--", d.host, bootstrapScript(sum, size, sessionID))
	a.proc, err = d.m.Start(ctx, session.Spec{Command: "exec " + shellQuote(argv), TTY: true, Name: "ssh@" + d.host,
		SideEffects: []string{"MAKES_NETWORK_REQUESTS"}})
	if err != nil {
		a.close()
		return nil, fmt.Errorf("starting ssh: %w", err)
	}
	return a, nil
}

func (a *attempt) close() {
	_ = a.ln.Close()
	_ = os.RemoveAll(a.dir)
}

// abandon ends an attempt that will not connect, and its ssh.
func (a *attempt) abandon(ctx context.Context) {
	a.close()
	if a.proc != nil {
		_, _ = a.proc.Stop(context.WithoutCancel(ctx), syscall.SIGTERM, time.Second, session.EndedByStop)
	}
}

// await waits for the relay to connect. When ssh asks a question first
// (a host key, a password), the attempt is kept for the next dial and the
// error names the process to answer.
func (d *sshDialer) await(ctx context.Context, a *attempt) (firstLine, error) {
	actx, cancel := context.WithCancel(ctx)
	defer cancel()
	outcome := make(chan session.Outcome, 1)
	go func() { outcome <- a.proc.Await(actx, time.Now().Add(connectWait), session.Until{InputWait: true}) }()
	select {
	case f := <-a.first:
		return f, nil
	case o := <-outcome:
		select {
		case f := <-a.first:
			return f, nil
		default:
		}
		if o.Reason == session.ReasonExited {
			a.close()
			return firstLine{}, fmt.Errorf("ssh to %s ended before the executor started (%s): %s", d.host, a.proc.ID, sshSaid(a.proc))
		}
		if ctx.Err() != nil || o.Reason != session.ReasonInputWait {
			a.abandon(ctx)
			if ctx.Err() != nil {
				return firstLine{}, ctx.Err()
			}
			return firstLine{}, fmt.Errorf("ssh to %s did not connect within %s (%s): %s", d.host, connectWait, a.proc.ID, sshSaid(a.proc))
		}
		d.pending = a
		return firstLine{}, fmt.Errorf("ssh to %s asks %q: answer it in process %s (write; wait_for_password for a password or passphrase), then retry", d.host, o.Input.Prompt, a.proc.ID)
	}
}

// sshSaid is the end of what ssh printed on its terminal.
func sshSaid(p *session.Process) string {
	return strings.TrimSpace(string(p.Snapshot(session.Query{MaxBytes: 1 << 10, Streams: session.Stdout}).Stdout))
}

// bootstrapScript starts the executor of session on the host: the copy of
// this binary in the user's private directory there, when its hash is
// sum; otherwise it asks for the binary ("need OS ARCH"), reads its size
// bytes from stdin (no more: the protocol follows), checks its hash and
// keeps it, mode 0700, in a directory only the user may write.
func bootstrapScript(sum string, size int64, sessionID string) string {
	return strings.NewReplacer("SUM", sum, "SHORT", sum[:16], "SID", sessionID, "SIZE", strconv.FormatInt(size, 10)).Replace(`set -e
umask 077
d="${XDG_CACHE_HOME:-$HOME/.cache}/yieldshell"
mkdir -p "$d"; chmod 700 "$d"
[ -O "$d" ] || { echo "yieldshell-bootstrap unsafe $d"; exit 5; }
b="$d/yieldshell-SHORT"
hash() { if command -v sha256sum >/dev/null 2>&1; then sha256sum "$1"; else shasum -a 256 "$1"; fi | cut -d' ' -f1; }
os=$(uname -s); arch=$(uname -m)
if [ ! -f "$b" ] || [ ! -O "$b" ] || [ "$(hash "$b")" != SUM ]; then
  echo "yieldshell-bootstrap need $os $arch"
  t="$b.$$"
  head -c SIZE > "$t"
  [ "$(hash "$t")" = SUM ] || { rm -f "$t"; echo "yieldshell-bootstrap badhash"; exit 4; }
  chmod 700 "$t"; mv -f "$t" "$b"
fi
echo "yieldshell-bootstrap ready $os $arch"
exec "$b" executor --session SID --dir "$d"`)
}

// bootstrap follows the script on c: it sends this binary when asked (or
// refuses a host it was not built for) and returns once the executor runs.
func (d *sshDialer) bootstrap(c net.Conn, line string, err error) (io.ReadWriteCloser, error) {
	_ = c.SetDeadline(time.Now().Add(2 * time.Minute))
	defer c.SetDeadline(time.Time{})
	for ; ; line, err = readLine(c) {
		if err != nil {
			return nil, fmt.Errorf("starting the executor on %s: %w", d.host, err)
		}
		f := strings.Fields(line)
		if len(f) < 2 || f[0] != "yieldshell-bootstrap" {
			return nil, fmt.Errorf("starting the executor on %s: unexpected %q (does the login shell print to stdout?)%s", d.host, line, noExecutor)
		}
		switch f[1] {
		case "ready":
			return c, nil
		case "need":
			if err := d.send(c, f[2:]); err != nil {
				return nil, err
			}
		default:
			return nil, fmt.Errorf("starting the executor on %s: %s%s", d.host, strings.Join(f[1:], " "), noExecutor)
		}
	}
}

// send copies this binary to the host, if it was built for it.
func (d *sshDialer) send(c net.Conn, sys []string) error {
	if len(sys) != 2 {
		return fmt.Errorf("starting the executor on %s: the host did not say its system", d.host)
	}
	goos, goarch := goSystem(sys[0], sys[1])
	if goos != runtime.GOOS || goarch != runtime.GOARCH {
		return fmt.Errorf("starting the executor on %s: it is %s/%s and this yieldshell is %s/%s: a %s/%s build of yieldshell is needed there%s",
			d.host, goos, goarch, runtime.GOOS, runtime.GOARCH, goos, goarch, noExecutor)
	}
	_, size, err := selfHash(d.cfg.Self)
	if err != nil {
		return err
	}
	f, err := os.Open(d.cfg.Self)
	if err != nil {
		return fmt.Errorf("copying yieldshell to %s: %w", d.host, err)
	}
	defer f.Close()
	if _, err := io.CopyN(c, f, size); err != nil {
		return fmt.Errorf("copying yieldshell to %s: %w", d.host, err)
	}
	return nil
}

// noExecutor ends the refusal of a host where no executor can run: what
// is left is ssh itself, as before exec had host.
const noExecutor = "; without an executor there, run ssh itself in exec: an interactive session whose prompts are seen by their text only " +
	"(a password is then typed only with wait_for_password and secret_at_text_prompt, and only if the user agreed)"

// goSystem names uname's system and machine as Go does.
func goSystem(kernel, machine string) (string, string) {
	goos := strings.ToLower(kernel)
	switch machine {
	case "x86_64", "amd64":
		return goos, "amd64"
	case "aarch64", "arm64":
		return goos, "arm64"
	case "i386", "i686":
		return goos, "386"
	}
	return goos, machine
}

// readLine reads one line a byte at a time: nothing past it is taken
// from the connection, which carries the protocol next.
func readLine(r io.Reader) (string, error) {
	var b []byte
	one := make([]byte, 1)
	for len(b) < 4096 {
		if _, err := io.ReadFull(r, one); err != nil {
			return "", err
		}
		if one[0] == '\n' {
			return string(b), nil
		}
		b = append(b, one[0])
	}
	return "", errors.New("line too long")
}

// selfHash is the SHA-256 of the binary at path, and its size.
func selfHash(path string) (string, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", 0, fmt.Errorf("reading yieldshell's own binary: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return "", 0, fmt.Errorf("reading yieldshell's own binary: %w", err)
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}

// shellQuote quotes argv for sh.
func shellQuote(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(q, " ")
}
