package netjail

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"syscall"
	"time"

	xproxy "golang.org/x/net/proxy"
	"golang.org/x/sys/unix"
)

// probe is the jailed child the tests start (the test binary in the mode
// "__probe"): it tries each "kind:target" of args and prints one line per
// try, "kind:target ok <detail>" or "kind:target err <error>".
func probe(args []string) int {
	for _, a := range args {
		kind, target, _ := strings.Cut(a, ":")
		detail, err := try(kind, target)
		if err != nil {
			var errno syscall.Errno
			if errors.As(err, &errno) {
				err = errno
			}
			fmt.Printf("%s err %v\n", a, err)
			continue
		}
		fmt.Printf("%s ok %s\n", a, detail)
	}
	return 0
}

func try(kind, target string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	switch kind {
	case "http": // through HTTP_PROXY, as most programs go
		return httpGet(target)
	case "socks", "socksvia": // through ALL_PROXY (socks5h); socksvia even where NO_PROXY says not
		d := xproxy.FromEnvironment().(xproxy.ContextDialer)
		if kind == "socksvia" {
			sd, err := xproxy.SOCKS5("tcp", strings.TrimPrefix(os.Getenv("ALL_PROXY"), "socks5h://"), nil, nil)
			if err != nil {
				return "", err
			}
			d = sd.(xproxy.ContextDialer)
		}
		c, err := d.DialContext(ctx, "tcp", target)
		if err != nil {
			return "", err
		}
		return exchange(c)
	case "tcp":
		c, err := (&net.Dialer{}).DialContext(ctx, "tcp", target)
		if err != nil {
			return "", err
		}
		c.Close()
		return "connected", nil
	case "tcpbridge": // the bridge's port on another address
		_, port, _ := net.SplitHostPort(strings.TrimPrefix(os.Getenv("HTTP_PROXY"), "http://"))
		return try("tcp", net.JoinHostPort(target, port))
	case "unix": // "@name": the abstract namespace
		c, err := net.Dial("unix", target)
		if err != nil {
			return "", err
		}
		c.Close()
		return "connected", nil
	case "udp":
		c, err := net.Dial("udp", target)
		if err != nil {
			return "", err
		}
		defer c.Close()
		_, err = c.Write([]byte("x"))
		return "sent", err
	case "dns":
		addrs, err := net.DefaultResolver.LookupHost(ctx, target)
		return fmt.Sprint(addrs), err
	}
	return trySystem(kind)
}

// trySystem tries what needs no target: sockets of other families, the
// capabilities held, entering the host's network namespace.
func trySystem(kind string) (string, error) {
	switch kind {
	case "raw", "packet", "raw6":
		family, typ, proto := unix.AF_INET, unix.SOCK_RAW, unix.IPPROTO_ICMP
		if kind == "packet" {
			family, proto = unix.AF_PACKET, int(htons(unix.ETH_P_ALL))
		} else if kind == "raw6" {
			family, proto = unix.AF_INET6, unix.IPPROTO_ICMPV6
		}
		fd, err := unix.Socket(family, typ, proto)
		if err != nil {
			return "", err
		}
		unix.Close(fd)
		return "opened", nil
	case "caps":
		b, err := os.ReadFile("/proc/self/status")
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "CapEff:"); ok {
				return strings.TrimSpace(v), nil
			}
		}
		return "", err
	case "setns": // the server's (our parent's) network namespace
		fd, err := unix.Open(fmt.Sprintf("/proc/%d/ns/net", os.Getppid()), unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			return "", err
		}
		defer unix.Close(fd)
		return "entered", unix.Setns(fd, unix.CLONE_NEWNET)
	}
	return "", fmt.Errorf("unknown probe %q", kind)
}

func htons(v uint16) uint16 { return v<<8 | v>>8 }

func httpGet(url string) (string, error) {
	c := &http.Client{Timeout: 5 * time.Second}
	resp, err := c.Get(url)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		return "", fmt.Errorf("status %d: %s", resp.StatusCode, strings.TrimSpace(string(b)))
	}
	return string(b), nil
}

// exchange sends a minimal HTTP request on c and returns the answer's
// body.
func exchange(c net.Conn) (string, error) {
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	fmt.Fprintf(c, "GET /socks HTTP/1.0\r\nHost: x\r\n\r\n")
	b, err := io.ReadAll(c)
	_, body, _ := strings.Cut(string(b), "\r\n\r\n")
	return body, err
}
