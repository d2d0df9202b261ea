package netjail

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/yieldshell/yieldshell/internal/netproxy"
	"github.com/yieldshell/yieldshell/internal/sandbox"
)

// A Jail is one sandboxed process's network: the Unix socket pair its
// helper hands the listener over, and the proxy that serves it.
type Jail struct {
	proxy   *netproxy.Proxy
	server  *os.File // this process's end
	child   *os.File // the helper's end, until Serve
	setup   setup
	monitor *sandbox.Monitor // Serve's, when the helper confined the command

	cancel context.CancelFunc
	wg     sync.WaitGroup
	closed sync.Once
}

// New prepares a Jail whose connections proxy serves (one Proxy per
// process: its denials are that process's). Nothing runs until Serve.
func New(proxy *netproxy.Proxy) (*Jail, error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("network sandbox: socket pair: %w", err)
	}
	// Non-blocking, this end is the runtime poller's: receive can time out.
	if err := unix.SetNonblock(fds[0], true); err != nil {
		unix.Close(fds[0])
		unix.Close(fds[1])
		return nil, fmt.Errorf("network sandbox: socket pair: %w", err)
	}
	return &Jail{
		proxy:  proxy,
		server: os.NewFile(uintptr(fds[0]), "netjail-server"),
		child:  os.NewFile(uintptr(fds[1]), "netjail-helper"),
		cancel: func() {},
	}, nil
}

// setup is what the server tells the helper, as its first message: the
// policy to confine the command by (nil: the network only) and what the
// kernel offers, as the server probed it.
type setup struct {
	Policy  *sandbox.Policy `json:"policy,omitempty"`
	Support sandbox.Support `json:"support"`
	TTY     string          `json:"tty,omitempty"`
}

// maxSetup bounds the setup message (a policy's paths).
const maxSetup = 1 << 20

// The helper's messages to the server: a tag byte, with a descriptor for
// the first two.
const (
	tagListener  = 'L' // the proxy's listener, in the namespace
	tagMonitor   = 'S' // the seccomp notification listener
	tagNoMonitor = 'N' // confined without seccomp (best-effort)
)

// Confine asks the helper to confine the command by p (as the kernel
// offers it, s) on the thread that execs it, after the network is set up:
// the command's Landlock domain, no_new_privs and seccomp filter, as
// sandbox.Start gives a fork, which cannot make the namespaces. tty is
// the command's terminal ("" with pipes). Call it before Serve, which
// then also receives the Monitor that names the command's denials.
func (j *Jail) Confine(p *sandbox.Policy, s sandbox.Support, tty string) {
	j.setup = setup{Policy: p, Support: s, TTY: tty}
}

// Monitor names the confined command's denials, once Serve has received
// it; nil without Confine or seccomp. The caller closes it.
func (j *Jail) Monitor() *sandbox.Monitor { return j.monitor }

// ChildFile is the file the started process must inherit (as
// os.ProcAttr.Files[fd] or exec.Cmd.ExtraFiles[fd-3]).
func (j *Jail) ChildFile() *os.File { return j.child }

// Wrap is the path and argv that run path with argv inside the jail: exe
// (this binary) in helper mode, told that ChildFile is its descriptor fd.
func (j *Jail) Wrap(exe string, fd int, path string, argv []string) (string, []string) {
	return exe, append([]string{exe, HelperCommand, strconv.Itoa(fd), path}, argv...)
}

// Apply asks for the new user and network namespaces on the start: the
// user's own uid and gid mapped to themselves (every id, as root, so that
// root's files stay root's), and for a non-root server the two
// capabilities the helper needs and drops before the command runs.
func (j *Jail) Apply(a *syscall.SysProcAttr) {
	a.Cloneflags |= syscall.CLONE_NEWUSER | syscall.CLONE_NEWNET
	uid, gid := os.Getuid(), os.Getgid()
	if uid == 0 {
		a.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: 0, Size: 1<<32 - 1}}
		a.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: 0, Size: 1<<32 - 1}}
		a.GidMappingsEnableSetgroups = true
		return
	}
	a.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
	a.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
	a.GidMappingsEnableSetgroups = false
	a.AmbientCaps = append(a.AmbientCaps, unix.CAP_NET_ADMIN, unix.CAP_SETPCAP)
}

// handOverTimeout bounds the wait for the helper's listener when ctx has
// no deadline: the helper does a few system calls before it sends it.
const handOverTimeout = 10 * time.Second

// Serve is called once the process has started: it closes this process's
// copy of the helper's end, sends the helper its setup, receives the
// listener (and, with Confine, the seccomp listener for Monitor) and
// serves the proxy on the listener until Close. It fails when the helper
// sends nothing (it failed, and said why on the process's stderr, or ctx
// ended).
func (j *Jail) Serve(ctx context.Context) error {
	ln, err := j.handOver(ctx)
	if err != nil {
		return err
	}
	if j.setup.Policy != nil {
		fd, err := j.receive(ctx, tagMonitor, tagNoMonitor)
		if err == nil {
			j.monitor, err = sandbox.Watch(j.setup.Policy, j.setup.TTY, fd)
		}
		if err != nil {
			ln.Close()
			return err
		}
	}
	sctx, cancel := context.WithCancel(context.Background())
	j.cancel = cancel
	j.wg.Go(func() { j.proxy.Serve(sctx, ln) })
	return nil
}

// handOver sends the setup and waits for the helper's listener.
func (j *Jail) handOver(ctx context.Context) (net.Listener, error) {
	j.child.Close()
	b, err := json.Marshal(j.setup)
	if err != nil {
		return nil, fmt.Errorf("network sandbox: setup: %w", err)
	}
	if _, err := j.server.Write(b); err != nil {
		return nil, fmt.Errorf("network sandbox: the helper handed over no listener (it took no setup: %v)", err)
	}
	fd, err := j.receive(ctx, tagListener, 0)
	if err != nil {
		return nil, err
	}
	return listenerFrom(fd)
}

// receive waits for the helper's next message, which must be tag with a
// descriptor (returned), or orNone without one (-1).
func (j *Jail) receive(ctx context.Context, tag, orNone byte) (int, error) {
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(handOverTimeout)
	}
	j.server.SetReadDeadline(deadline)
	stop := context.AfterFunc(ctx, func() { j.server.SetReadDeadline(time.Unix(1, 0)) })
	defer stop()
	rc, err := j.server.SyscallConn()
	if err != nil {
		return -1, fmt.Errorf("network sandbox: %w", err)
	}
	buf, oob := make([]byte, 1), make([]byte, unix.CmsgSpace(4))
	var n, oobn int
	var rerr error
	err = rc.Read(func(fd uintptr) bool {
		n, oobn, _, _, rerr = unix.Recvmsg(int(fd), buf, oob, unix.MSG_CMSG_CLOEXEC)
		return rerr != unix.EAGAIN
	})
	if err == nil {
		err = rerr
	}
	if err != nil || n == 0 {
		return -1, fmt.Errorf("network sandbox: the helper handed over no %s (%v)", tagName(tag), errOr(err, "it ended first"))
	}
	fd, err := descriptorFrom(oob[:oobn])
	switch {
	case buf[0] == orNone && orNone != 0 && err != nil:
		return -1, nil
	case buf[0] != tag || err != nil:
		if fd >= 0 {
			unix.Close(fd)
		}
		return -1, fmt.Errorf("network sandbox: the helper's message holds no %s", tagName(tag))
	}
	return fd, nil
}

func tagName(tag byte) string {
	if tag == tagListener {
		return "listener"
	}
	return "seccomp listener"
}

func errOr(err error, s string) any {
	if err != nil {
		return err
	}
	return s
}

// descriptorFrom returns the one descriptor in oob.
func descriptorFrom(oob []byte) (int, error) {
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil || len(msgs) != 1 {
		return -1, errors.New("no descriptor")
	}
	fds, err := unix.ParseUnixRights(&msgs[0])
	if err != nil || len(fds) != 1 {
		for _, fd := range fds {
			unix.Close(fd)
		}
		return -1, errors.New("no single descriptor")
	}
	return fds[0], nil
}

// listenerFrom makes a net.Listener of fd, which it closes.
func listenerFrom(fd int) (net.Listener, error) {
	f := os.NewFile(uintptr(fd), "netjail-listener")
	defer f.Close()
	ln, err := net.FileListener(f)
	if err != nil {
		return nil, fmt.Errorf("network sandbox: listener: %w", err)
	}
	return ln, nil
}

// Close stops serving: the listener and every connection through it are
// closed and Close returns once they have ended. Call it when the process
// has ended (its descendants lose the network with it); a second Close
// does nothing.
func (j *Jail) Close() error {
	j.closed.Do(func() {
		j.cancel()
		j.wg.Wait()
		j.child.Close()
		j.server.Close()
	})
	return nil
}

// Check starts exe (this binary) as the helper in a jail that runs
// nothing, and says whether the jail works here: the kernel has user and
// network namespaces, this user may create them, and loopback comes up.
// Its error says what is missing. It judges by the hand-over, not by the
// helper's exit status, so it works while pty's reaper reaps every child.
func Check(ctx context.Context, exe string) error {
	j, err := New(netproxy.New(netproxy.Config{}))
	if err != nil {
		return err
	}
	defer j.Close()
	var stderr bytes.Buffer
	cmd := j.command(exe, "-", nil)
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("network sandbox: cannot create user and network namespaces: %w", err)
	}
	ln, err := j.handOver(ctx)
	cmd.Wait()
	if err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return errors.New(msg)
		}
		return err
	}
	return ln.Close()
}

// command is path with argv started by exe as the helper in the jail, the
// jail's file at descriptor 3, as an exec.Cmd (not started): Check's
// start, and the tests'.
func (j *Jail) command(exe, path string, argv []string) *exec.Cmd {
	cmd := &exec.Cmd{ExtraFiles: []*os.File{j.child}, SysProcAttr: &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}}
	cmd.Path, cmd.Args = j.Wrap(exe, 3, path, argv)
	j.Apply(cmd.SysProcAttr)
	return cmd
}
