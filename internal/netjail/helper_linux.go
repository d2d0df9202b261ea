package netjail

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/yieldshell/yieldshell/internal/netproxy"
	"github.com/yieldshell/yieldshell/internal/sandbox"
)

// Main is the helper mode, run as the first program inside the new
// namespaces with args "<fd> <path> <argv0> <args>...": it calls enter
// and execs path from the thread enter confined. It returns (an exit
// code, having said why on stderr) only when it fails; path "-" exits 0
// after the hand-over (Check).
func Main(args []string) int {
	if len(args) < 3 && (len(args) != 2 || args[1] != "-") {
		fmt.Fprintln(os.Stderr, "yieldshell: network sandbox: usage: __netjail <fd> <path> <argv0> [args...]")
		return 2
	}
	fd, err := strconv.Atoi(args[0])
	if err != nil || fd < 3 {
		fmt.Fprintf(os.Stderr, "yieldshell: network sandbox: bad descriptor %q\n", args[0])
		return 2
	}
	// enter's capabilities, Landlock domain and seccomp filter are this
	// thread's, which execs; it is never unlocked.
	runtime.LockOSThread()
	env, err := enter(fd, os.Environ())
	if err == nil && args[1] == "-" {
		return 0
	}
	if err == nil {
		err = syscall.Exec(args[1], args[2:], env)
		err = fmt.Errorf("exec %s: %w", args[1], err)
	}
	fmt.Fprintf(os.Stderr, "yieldshell: network sandbox: %v\n", err)
	return 126
}

// enter is the helper's work short of the exec, on the locked thread that
// will exec: it reads the server's setup from the Unix socket fd, brings
// loopback up, hands a listener on 127.0.0.1 to the server, drops the
// capabilities it used, confines the thread as the setup says (handing
// the seccomp notification listener to the server too) and returns env
// with the proxy variables set to that listener. It closes fd.
func enter(fd int, env []string) ([]string, error) {
	defer unix.Close(fd)
	s, err := readSetup(fd)
	if err != nil {
		return nil, err
	}
	port, err := handOver(fd)
	if err != nil {
		return nil, err
	}
	if err := dropCapabilities(); err != nil {
		return nil, err
	}
	if s.Policy != nil {
		if err := confine(fd, s); err != nil {
			return nil, err
		}
	}
	return append(withoutProxyEnv(env), netproxy.Env("127.0.0.1:"+strconv.Itoa(port))...), nil
}

// readSetup reads the server's one setup message.
func readSetup(fd int) (setup, error) {
	var s setup
	b := make([]byte, maxSetup)
	n, _, _, _, err := unix.Recvmsg(fd, b, nil, 0)
	if err != nil {
		return s, fmt.Errorf("read the setup: %w", err)
	}
	if n == 0 {
		return s, errors.New("read the setup: the server sent none")
	}
	if err := json.Unmarshal(b[:n], &s); err != nil {
		return s, fmt.Errorf("read the setup: %w", err)
	}
	return s, nil
}

// confine applies the setup's policy to this thread and hands the seccomp
// notification listener to the server ('N' when there is none).
func confine(fd int, s setup) error {
	listener, err := sandbox.ConfineThread(s.Policy, s.Support, s.TTY)
	if err != nil {
		return err
	}
	if listener < 0 {
		return send(fd, tagNoMonitor, -1)
	}
	defer unix.Close(listener)
	return send(fd, tagMonitor, listener)
}

// send sends one message, tag and (fd >= 0) a descriptor, to the server.
func send(sock int, tag byte, fd int) error {
	var rights []byte
	if fd >= 0 {
		rights = unix.UnixRights(fd)
	}
	if err := unix.Sendmsg(sock, []byte{tag}, rights, nil, 0); err != nil {
		return fmt.Errorf("hand over to the server: %w", err)
	}
	return nil
}

// handOver brings loopback up, listens on 127.0.0.1 (a free port) and
// sends the listening socket over the Unix socket fd; it closes the
// listener and returns the port.
func handOver(fd int) (int, error) {
	if err := loopbackUp(); err != nil {
		return 0, err
	}
	if err := onlyLoopback(); err != nil {
		return 0, err
	}
	ln, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return 0, fmt.Errorf("listen: %w", err)
	}
	defer unix.Close(ln)
	if err := unix.Bind(ln, &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		return 0, fmt.Errorf("listen: bind 127.0.0.1: %w", err)
	}
	if err := unix.Listen(ln, 128); err != nil {
		return 0, fmt.Errorf("listen: %w", err)
	}
	sa, err := unix.Getsockname(ln)
	if err != nil {
		return 0, fmt.Errorf("listen: %w", err)
	}
	if err := send(fd, tagListener, ln); err != nil {
		return 0, err
	}
	return sa.(*unix.SockaddrInet4).Port, nil
}

// loopbackUp sets lo up: a new network namespace has it down.
func loopbackUp() error {
	s, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("loopback up: %w", err)
	}
	defer unix.Close(s)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return fmt.Errorf("loopback up: %w", err)
	}
	if err := unix.IoctlIfreq(s, unix.SIOCGIFFLAGS, ifr); err != nil {
		return fmt.Errorf("loopback up: %w", err)
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	if err := unix.IoctlIfreq(s, unix.SIOCSIFFLAGS, ifr); err != nil {
		return fmt.Errorf("loopback up: %w", err)
	}
	return nil
}

// onlyLoopback makes sure the helper is in a network namespace of its own
// (the start asked for one): if it sees any interface but lo, the command
// would have the host's network, so it must not run.
func onlyLoopback() error {
	ifs, err := net.Interfaces()
	if err != nil {
		return fmt.Errorf("list interfaces: %w", err)
	}
	for _, i := range ifs {
		if i.Name != "lo" {
			return fmt.Errorf("not in a network namespace of its own (it has %s); refusing to run the command", i.Name)
		}
	}
	return nil
}

// dropCapabilities takes CAP_NET_ADMIN and CAP_NET_RAW out of the
// bounding set (a command running as root in the namespace keeps its other
// capabilities there, never these: no raw or packet sockets, no
// reconfiguring the namespace) and clears the ambient set the server gave
// a non-root helper, so that such a command execs with none.
func dropCapabilities() error {
	for _, c := range []uintptr{unix.CAP_NET_ADMIN, unix.CAP_NET_RAW} {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, c, 0, 0, 0); err != nil {
			return fmt.Errorf("drop capability %d: %w", c, err)
		}
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
		return fmt.Errorf("clear ambient capabilities: %w", err)
	}
	return nil
}

// withoutProxyEnv drops the proxy variables the command would otherwise
// inherit (they would point outside the namespace).
func withoutProxyEnv(env []string) []string {
	out := env[:0:0]
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		switch strings.ToUpper(name) {
		case "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY", "FTP_PROXY":
			continue
		}
		out = append(out, kv)
	}
	return out
}
