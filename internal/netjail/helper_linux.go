package netjail

import (
	"fmt"
	"net"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/yieldshell/yieldshell/internal/netproxy"
)

// Main is the helper mode, run as the first program inside the new
// namespaces with args "<fd> <path> <argv0> <args>...": it calls Enter
// and execs path. It returns (an exit code, having said why on stderr)
// only when it fails; path "-" exits 0 after the hand-over (Check).
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
	runtime.LockOSThread() // Enter's capabilities are this thread's, which execs
	env, err := Enter(fd, os.Environ())
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

// Enter is the helper's work short of the exec, for a helper that also
// confines the command otherwise (Landlock, seccomp) before its one exec:
// it brings loopback up, hands a listener on 127.0.0.1 to the server over
// the Unix socket fd (closing fd), drops the capabilities it used, and
// returns env with the proxy variables set to that listener. Call it on a
// locked OS thread, the one that will exec (capabilities are a thread's),
// before a seccomp filter that would refuse its ioctl or socket calls.
func Enter(fd int, env []string) ([]string, error) {
	port, err := handOver(fd)
	if err != nil {
		return nil, err
	}
	if err := dropCapabilities(); err != nil {
		return nil, err
	}
	return append(withoutProxyEnv(env), netproxy.Env("127.0.0.1:"+strconv.Itoa(port))...), nil
}

// handOver brings loopback up, listens on 127.0.0.1 (a free port) and
// sends the listening socket over the Unix socket fd; it closes both and
// returns the port.
func handOver(fd int) (int, error) {
	defer unix.Close(fd)
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
	if err := unix.Sendmsg(fd, []byte{'L'}, unix.UnixRights(ln), nil, 0); err != nil {
		return 0, fmt.Errorf("hand the listener to the server: %w", err)
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
