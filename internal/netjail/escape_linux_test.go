package netjail

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// TestJailReachesOnlyThroughTheProxy is the network half of issue 40's
// escape tests: a jailed child reaches a listed host through the proxy
// (HTTP and SOCKS5), is refused an unlisted one with the denial named, and
// every other way out fails in the kernel.
func TestJailReachesOnlyThroughTheProxy(t *testing.T) {
	w := newWorld(t)
	up := strconv.Itoa(w.upstream)
	hostProxy := "127.0.0.1:" + strconv.Itoa(w.hostProxy)
	want := map[string]string{
		"http:http://listed.test:" + up + "/":     "ok hello from upstream",
		"socks:listed.test:" + up:                 "ok hello from upstream",
		"http:http://unlisted.test:" + up + "/":   "err status 403",
		"socks:unlisted.test:" + up:               "err ",
		"socksvia:" + hostProxy:                   "err ", // the host-side proxy port, through the proxy
		"tcp:" + hostProxy:                        "err connection refused",
		"tcp:127.0.0.2:" + up:                     "err connection refused",
		"tcp:192.0.2.1:80":                        "err network is unreachable",
		"tcp:[2001:db8::1]:80":                    "err network is unreachable",
		"tcpbridge:192.0.2.1":                     "err network is unreachable",
		"udp:192.0.2.1:53":                        "err network is unreachable",
		"udp:[2001:db8::1]:53":                    "err network is unreachable",
		"raw:":                                    "err operation not permitted",
		"raw6:":                                   "err operation not permitted",
		"packet:":                                 "err operation not permitted",
		"dns:yieldshell-netjail-test.example.com": "err ",
		"setns:":                                  "err permission denied",
	}
	abstract := "@yieldshell-netjail-test-" + strconv.Itoa(os.Getpid())
	if ln, err := net.Listen("unix", abstract); err == nil {
		defer ln.Close()
		want["unix:"+abstract] = "err connection refused" // the host's abstract sockets are not the jail's
	}
	if h := hostAddr(); h != "" {
		want["tcp:"+h+":"+strconv.Itoa(w.hostProxy)] = "err network is unreachable"
		want["tcpbridge:"+h] = "err network is unreachable"
		want["udp:"+h+":53"] = "err network is unreachable"
	}
	var probes []string
	for p := range want {
		probes = append(probes, p)
	}
	got, denials := w.probes(t, append(probes, "caps:")...)
	for p, prefix := range want {
		if !strings.HasPrefix(got[p], prefix) {
			t.Errorf("%s: %q, want %q…", p, got[p], prefix)
		}
	}
	checkCaps(t, got["caps:"])
	wantDenied := map[string]bool{"unlisted.test:" + up: true, hostProxy: true}
	for _, d := range denials {
		hp := fmt.Sprintf("%s:%d", d.Host, d.Port)
		if d.Op != "connect" || !wantDenied[hp] {
			t.Errorf("unexpected denial %+v", d)
		}
		delete(wantDenied, hp)
	}
	for hp := range wantDenied {
		t.Errorf("no denial names %s (denials %+v)", hp, denials)
	}
}

// checkCaps checks the jailed command's effective capabilities: none for
// an ordinary user, and never CAP_NET_ADMIN (12) or CAP_NET_RAW (13).
func checkCaps(t *testing.T, result string) {
	t.Helper()
	v, ok := strings.CutPrefix(result, "ok ")
	caps, err := strconv.ParseUint(v, 16, 64)
	if !ok || err != nil {
		t.Fatalf("caps: %q", result)
	}
	if caps&(1<<12|1<<13) != 0 || os.Getuid() != 0 && caps != 0 {
		t.Errorf("the jailed command holds capabilities %#x", caps)
	}
}

// TestJailRealPrograms has curl, python3 and bash try the same, each
// skipped by name where it is not installed.
func TestJailRealPrograms(t *testing.T) {
	w := newWorld(t)
	up := strconv.Itoa(w.upstream)
	tests := []struct {
		prog string
		args []string
		want []string // lines the output must hold
	}{
		{"curl", []string{"sh", "-c", `
			curl -sS --max-time 10 http://listed.test:` + up + `/ && echo
			curl -sS --max-time 10 --proxy "$ALL_PROXY" http://listed.test:` + up + `/ && echo
			curl -sS -f --max-time 10 http://unlisted.test:` + up + `/ || echo "unlisted refused $?"
			curl -sS --max-time 10 --noproxy '*' http://127.0.0.2:` + up + `/ || echo "direct refused $?"`},
			[]string{"hello from upstream\nhello from upstream\n", "unlisted refused 22", "direct refused 7"}},
		{"python3", []string{"python3", "-c", `
import socket
for fam, addr in ((socket.AF_INET, ("192.0.2.1", 80)), (socket.AF_INET, ("127.0.0.2", ` + up + `))):
    try:
        socket.create_connection(addr, timeout=5); print("tcp connected")
    except OSError as e: print("tcp", e.errno)
try:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.sendto(b"x", ("192.0.2.1", 53)); print("udp sent")
except OSError as e: print("udp", e.errno)
try:
    socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP); print("raw opened")
except OSError as e: print("raw", e.errno)
try:
    socket.getaddrinfo("yieldshell-netjail-test.example.com", 80); print("dns resolved")
except OSError as e: print("dns failed")
`}, []string{"tcp 101\n", "tcp 111\n", "udp 101\n", "raw 1\n", "dns failed\n"}},
		{"bash", []string{"bash", "-c", `
			(exec 3<>/dev/tcp/192.0.2.1/80) 2>/dev/null || echo "far refused"
			(exec 3<>/dev/tcp/127.0.0.2/` + up + `) 2>/dev/null || echo "near refused"
			(exec 3<>/dev/udp/192.0.2.1/53 && echo x >&3) 2>/dev/null || echo "udp refused"`},
			[]string{"far refused", "near refused", "udp refused"}},
	}
	for _, tt := range tests {
		t.Run(tt.prog, func(t *testing.T) {
			path, err := exec.LookPath(tt.args[0])
			if _, missing := exec.LookPath(tt.prog); missing != nil || err != nil {
				t.Skipf("%s is not installed", tt.prog)
			}
			out, _ := w.run(t, path, tt.args...)
			for _, line := range tt.want {
				if !strings.Contains(out, line) {
					t.Errorf("output lacks %q:\n%s", line, out)
				}
			}
		})
	}
}
