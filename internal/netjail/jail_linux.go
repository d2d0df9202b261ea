package netjail

import (
	"bytes"
	"context"
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
)

// A Jail is one sandboxed process's network: the Unix socket pair its
// helper hands the listener over, and the proxy that serves it.
type Jail struct {
	proxy  *netproxy.Proxy
	server *os.File // this process's end
	child  *os.File // the helper's end, until Serve

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
// copy of the helper's end, receives the listener and serves the proxy on
// it until Close. It fails when the helper sends nothing (it failed, and
// said why on the process's stderr, or ctx ended).
func (j *Jail) Serve(ctx context.Context) error {
	ln, err := j.receive(ctx)
	if err != nil {
		return err
	}
	sctx, cancel := context.WithCancel(context.Background())
	j.cancel = cancel
	j.wg.Go(func() { j.proxy.Serve(sctx, ln) })
	return nil
}

// receive waits for the helper's listener.
func (j *Jail) receive(ctx context.Context) (net.Listener, error) {
	j.child.Close()
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(handOverTimeout)
	}
	j.server.SetReadDeadline(deadline)
	stop := context.AfterFunc(ctx, func() { j.server.SetReadDeadline(time.Unix(1, 0)) })
	defer stop()
	rc, err := j.server.SyscallConn()
	if err != nil {
		return nil, fmt.Errorf("network sandbox: %w", err)
	}
	oob := make([]byte, unix.CmsgSpace(4))
	var n, oobn int
	var rerr error
	err = rc.Read(func(fd uintptr) bool {
		n, oobn, _, _, rerr = unix.Recvmsg(int(fd), make([]byte, 1), oob, unix.MSG_CMSG_CLOEXEC)
		return rerr != unix.EAGAIN
	})
	if err == nil {
		err = rerr
	}
	if err != nil || n == 0 {
		return nil, fmt.Errorf("network sandbox: the helper handed over no listener (%v)", errOr(err, "it ended first"))
	}
	return listenerFrom(oob[:oobn])
}

func errOr(err error, s string) any {
	if err != nil {
		return err
	}
	return s
}

// listenerFrom makes a net.Listener of the one descriptor in oob.
func listenerFrom(oob []byte) (net.Listener, error) {
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil || len(msgs) != 1 {
		return nil, errors.New("network sandbox: the helper's message holds no descriptor")
	}
	fds, err := unix.ParseUnixRights(&msgs[0])
	if err != nil || len(fds) != 1 {
		for _, fd := range fds {
			unix.Close(fd)
		}
		return nil, errors.New("network sandbox: the helper's message holds no single descriptor")
	}
	f := os.NewFile(uintptr(fds[0]), "netjail-listener")
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
	ln, err := j.receive(ctx)
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
