package session

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/yieldshell/yieldshell/internal/netjail"
	"github.com/yieldshell/yieldshell/internal/poll"
	"github.com/yieldshell/yieldshell/internal/sandbox"
	"github.com/yieldshell/yieldshell/internal/testuser"
	"github.com/yieldshell/yieldshell/pty"
)

// TestMain answers the network jail's helper mode: this test binary is
// the Manager's helper (LocalOptions: os.Executable). The tests run as the
// child subreaper, as the server does: a command's end then asks the
// server's children about its tree, where otherwise it reads the whole
// process table (pty's tests cover that path).
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == netjail.HelperCommand {
		os.Exit(netjail.Main(os.Args[2:]))
	}
	_ = pty.SetChildSubreaper()
	os.Exit(m.Run())
}

// hostListWorld is what a host-list sandbox is tried against: a listed
// and an unlisted HTTP server on 127.0.0.2, a service on the host's
// loopback, a root to write and a directory outside it.
type hostListWorld struct {
	listed, unlisted, hostService int
	root, outside                 string
}

func newHostListWorld(t *testing.T) *hostListWorld {
	if gaps := sandbox.Probe().Gaps(); len(gaps) > 0 {
		t.Skipf("this kernel cannot confine: %v", gaps)
	}
	exe, _ := os.Executable()
	if err := checkJail(exe); err != nil {
		t.Skipf("the network jail does not work here: %v", err)
	}
	w := &hostListWorld{}
	w.listed = serveHTTP(t, "127.0.0.2:0", "hello from listed")
	w.unlisted = serveHTTP(t, "127.0.0.2:0", "hello from unlisted")
	w.hostService = serveHTTP(t, "127.0.0.1:0", "hello from the host")
	base, err := os.MkdirTemp("", "ys-hostlist-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	w.root, w.outside = filepath.Join(base, "root"), filepath.Join(base, "outside")
	for _, d := range []string{base, w.root, w.outside} {
		os.MkdirAll(d, 0o777)
		os.Chmod(d, 0o777) // the throwaway user's (TestSandboxHostListAsUser) to write but for the sandbox
	}
	return w
}

// serveHTTP serves body on addr until the test ends; it returns the port.
func serveHTTP(t *testing.T, addr, body string) int {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Skipf("cannot listen on %s: %v", addr, err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, body) })}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().(*net.TCPAddr).Port
}

func (w *hostListWorld) manager(t *testing.T) *Manager {
	return newTestManager(t, map[string]string{"YIELDSHELL_SANDBOX": "workspace-write", "YIELDSHELL_ALLOWED_CWDS": w.root,
		"YIELDSHELL_SANDBOX_NETWORK": "127.0.0.2:" + strconv.Itoa(w.listed)})
}

// fetcher is a shell function "fetch URL" that goes through the proxy
// variables as programs do: curl, else python3.
func fetcher(t *testing.T) string {
	if _, err := exec.LookPath("curl"); err == nil {
		return `fetch() { curl -sS --max-time 10 "$1"; echo; }`
	}
	if _, err := exec.LookPath("python3"); err == nil {
		return `fetch() { python3 -c 'import sys, urllib.request; print(urllib.request.urlopen(sys.argv[1], timeout=10).read().decode())' "$1" 2>&1 | tail -1; }`
	}
	t.Skip("neither curl nor python3 is installed")
	return ""
}

// Issue 40 items 2, 4, 7: YIELDSHELL_SANDBOX_NETWORK=<host list> is
// enforced on a sandboxed command, through the Manager's start path: a
// listed destination is reached through the proxy variables; an unlisted
// one is refused and named (host and port) next to the kernel's file
// denials; a direct TCP or UDP connect, the host's loopback services and
// raw sockets are out of reach; and the helper's confinement holds (no
// write outside the root, no namespaces).
func TestSandboxHostList(t *testing.T) {
	for _, tool := range []string{"bash", "unshare", "mount"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed", tool)
		}
	}
	w := newHostListWorld(t)
	m := w.manager(t)
	raw, send := "echo raw: no python3", "echo send: no python3"
	_, noPython := exec.LookPath("python3")
	if noPython == nil {
		raw = `python3 -c 'import socket; socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP); print("RAW")' 2>&1 | tail -1`
		send = `python3 -c 'import socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"x", ("192.0.2.1", 5353)); print("SENT")' 2>&1 | tail -1`
	}
	script := strings.Join([]string{fetcher(t),
		`fetch http://127.0.0.2:$LISTED/`,
		`fetch http://127.0.0.2:$UNLISTED/`,
		`(exec 3<>/dev/tcp/127.0.0.2/$LISTED && echo DIRECT-TCP) 2>/dev/null || echo direct tcp refused`,
		`(echo x > /dev/udp/192.0.2.1/53 && echo DIRECT-UDP) 2>/dev/null || echo direct udp refused`,
		`(exec 3<>/dev/tcp/127.0.0.1/$HOSTSVC && echo HOST-LOOPBACK) 2>/dev/null || echo host loopback refused`,
		raw,
		send,
		// The proxy's own port, asked by hand for the host's loopback service.
		`(exec 3<>/dev/tcp/127.0.0.1/${HTTP_PROXY##*:} && printf 'GET http://127.0.0.1:%s/ HTTP/1.0\r\n\r\n' $HOSTSVC >&3 && head -1 <&3 && cat <&3 | tail -1)`,
		`echo pwn > "$OUTSIDE/x" 2>/dev/null || echo write refused`,
		`unshare -n true 2>/dev/null && echo UNSHARED || echo unshare refused`,
		`mount -t tmpfs none "$OUTSIDE" 2>/dev/null && echo MOUNTED || echo mount refused`,
		`echo ok > in.txt && cat in.txt`,
	}, "\n")
	env := map[string]string{"LISTED": strconv.Itoa(w.listed), "UNLISTED": strconv.Itoa(w.unlisted),
		"HOSTSVC": strconv.Itoa(w.hostService), "OUTSIDE": w.outside}
	p, _, out := run(t, m, Spec{Command: script, Shell: "bash", Cwd: w.root, Env: env, SideEffects: []string{"NONE"}})
	got := string(out.Stdout)
	for _, want := range []string{"hello from listed", "HTTP/1.1 403 Forbidden", "direct tcp refused", "direct udp refused", "host loopback refused", "write refused", "unshare refused", "mount refused", "ok"} {
		if !strings.Contains(got, want) {
			t.Errorf("stdout lacks %q:\n%s\nstderr:\n%s", want, got, out.Stderr)
		}
	}
	for _, escaped := range []string{"hello from unlisted", "DIRECT-", "HOST-LOOPBACK", "hello from the host", "RAW\n", "SENT\n", "UNSHARED", "MOUNTED"} {
		if strings.Contains(got, escaped) {
			t.Errorf("stdout has %q: an escape\n%s", escaped, got)
		}
	}
	if _, err := os.Stat(filepath.Join(w.outside, "x")); err == nil {
		t.Error("a file outside the root was written")
	}
	r := p.Sandbox()
	if r == nil || r.Network != sandbox.NetworkHosts || len(r.Gaps) > 0 {
		t.Fatalf("sandbox report %+v, want network hosts and nothing missing", r)
	}
	var named []string
	for _, d := range r.Denied {
		named = append(named, strings.TrimSpace(fmt.Sprintf("%s %s%s %s %d", d.Op, d.Path, d.Address, d.Host, d.Port)))
	}
	t.Logf("stdout:\n%s\ndenied %q", got, named)
	// The jail's refusals are named too: where the command went around
	// the proxy (bash's /dev/udp connects), and the raw socket.
	wants := []string{"connect  127.0.0.2 " + strconv.Itoa(w.unlisted), "connect  127.0.0.1 " + strconv.Itoa(w.hostService),
		"open " + filepath.Join(w.outside, "x") + "  0", "unshare   0", "mount   0", "connect  192.0.2.1 53"}
	if noPython == nil {
		wants = append(wants, "socket AF_INET raw  0", "send  192.0.2.1 5353")
	}
	for _, want := range wants {
		if !slices.Contains(named, want) {
			t.Errorf("denied %q, want %q among them", named, want)
		}
	}
}

// Issue 40 item 6 in a host-list sandbox: the command keeps the helper's
// pid, so input-wait detection reads it from outside as any other's.
func TestSandboxHostListInputWait(t *testing.T) {
	w := newHostListWorld(t)
	m := w.manager(t)
	p, err := m.Start(t.Context(), Spec{Command: `read -p "Name? " n; echo "hi $n"`, Shell: "bash", TTY: true, Cwd: w.root, SideEffects: []string{"NONE"}})
	if err != nil {
		t.Fatal(err)
	}
	o := p.Await(t.Context(), time.Now().Add(20*time.Second), Until{InputWait: true})
	if o.Reason != ReasonInputWait {
		t.Fatalf("wait: %s, want input_wait", o.Reason)
	}
	if err := p.Write(t.Context(), []byte("bob\n"), false); err != nil {
		t.Fatal(err)
	}
	if r := p.WaitEnd(t.Context(), time.Now().Add(20*time.Second)); r != ReasonExited {
		t.Fatalf("did not end: %s", r)
	}
	zero := int64(0)
	if s := p.Snapshot(Query{Since: &zero, MaxBytes: 1 << 20, Streams: Both}); !strings.Contains(string(s.Output.Stdout), "hi bob") {
		t.Errorf("output %q", s.Output.Stdout)
	}
}

// Issue 40 items 3 and 6 in a host-list sandbox: stop reaches a
// descendant that left the process group and the session, as for any
// command (the helper's pid is the command's).
func TestSandboxHostListStopReachesEscapedDescendant(t *testing.T) {
	w := newHostListWorld(t)
	m := w.manager(t)
	pidFile := filepath.Join(w.root, "pid")
	t.Cleanup(func() { killPidFile(pidFile) })
	p, err := m.Start(t.Context(), Spec{Command: fmt.Sprintf(`setsid sh -c 'trap "" TERM; echo $$ > %[1]s; exec sleep 60' & while [ ! -s %[1]s ]; do :; done; echo started; wait`, pidFile),
		Cwd: w.root, SideEffects: []string{"NONE"}})
	if err != nil {
		t.Fatal(err)
	}
	if o := p.Await(t.Context(), time.Now().Add(20*time.Second), Until{Pattern: regexp.MustCompile("started")}); o.Reason != ReasonPattern {
		t.Fatalf("the escaped grandchild never started: %s", o.Reason)
	}
	b, _ := os.ReadFile(pidFile)
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if _, err := p.Stop(t.Context(), syscall.SIGTERM, 200*time.Millisecond, EndedByStop); err != nil {
		t.Fatal(err)
	}
	poll.Until(t, 10*time.Second, fmt.Sprintf("the escaped grandchild %d ends", pid), func() bool { return !processAlive(pid) })
}

// Issue 40 item 6 in a host-list sandbox: a crash restart gets a jail of
// its own, which reaches the listed host again and names its own denials.
func TestSandboxHostListCrashRestart(t *testing.T) {
	w := newHostListWorld(t)
	m := w.manager(t)
	s := named(fetcher(t)+fmt.Sprintf("; fetch http://127.0.0.2:%d/; fetch http://127.0.0.2:%d/; exit 3", w.listed, w.unlisted), "crashy")
	s.Cwd, s.Shell = w.root, "bash"
	s.Restart = RestartPolicy{MaxRetries: 1, Delay: 10 * time.Millisecond}
	p, err := m.Start(t.Context(), s)
	if err != nil {
		t.Fatal(err)
	}
	var newest *Process
	poll.Until(t, 20*time.Second, "one restart, ended", func() bool {
		h := m.History(p)
		newest, _ = m.Get("crashy")
		return h.Restarts == 1 && !h.RestartPending && newest != nil && newest != p && newest.Ended()
	})
	zero := int64(0)
	out := newest.Snapshot(Query{Since: &zero, MaxBytes: 1 << 20, Streams: Both}).Output
	r := newest.Sandbox()
	if !strings.Contains(string(out.Stdout), "hello from listed") || r == nil || r.Network != sandbox.NetworkHosts ||
		len(r.Denied) != 1 || r.Denied[0].Port != w.unlisted || r.Denied[0].Count != 1 {
		t.Errorf("the restart: stdout %q, sandbox %+v; want the listed host and its own denial", out.Stdout, r)
	}
}

// Issue 40 item 5: where the jail does not work, best-effort runs a
// sandboxed command with the network off, never open, and says why on
// every answer.
func TestSandboxHostListBestEffortGap(t *testing.T) {
	if gaps := sandbox.Probe().Gaps(); len(gaps) > 0 {
		t.Skipf("this kernel cannot confine: %v", gaps)
	}
	m := newTestManager(t, map[string]string{"YIELDSHELL_SANDBOX": "best-effort"})
	m.hostList = &hostList{gap: "the host list (no namespaces here): the network is off"} // as checkHostList leaves it
	p, _, out := run(t, m, Spec{Command: `exec 3<>/dev/tcp/127.0.0.1/9 || echo refused`, Shell: "bash", SideEffects: []string{"NONE"}})
	r := p.Sandbox()
	if r == nil || r.Network != sandbox.NetworkOff || !slices.Contains(r.Gaps, m.hostList.gap) || !strings.Contains(string(out.Stdout), "refused") {
		t.Errorf("sandbox %+v, stdout %q: want the network off and the gap said", r, out.Stdout)
	}
	if g := m.SandboxNetworkGaps(); !slices.Equal(g, []string{m.hostList.gap}) {
		t.Errorf("health's gaps %q, want the host list's", g)
	}
}

// TestSandboxHostListAsUser runs the host-list tests again as an ordinary
// user this test creates and removes: the jail's namespaces then come
// from an unprivileged user namespace.
func TestSandboxHostListAsUser(t *testing.T) {
	if os.Getenv("YIELDSHELL_HOSTLIST_AS_USER") != "" {
		t.Skip("already the throwaway user")
	}
	uid, gid := testuser.New(t)
	bin := testuser.CopyTestBinary(t)
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-test.run", "^(TestSandboxHostList|TestSandboxHostListInputWait|TestSandboxHostListStopReachesEscapedDescendant|TestSandboxHostListCrashRestart)$", "-test.v")
	cmd.Dir = filepath.Dir(bin)
	cmd.Env = append(os.Environ(), "YIELDSHELL_HOSTLIST_AS_USER=1", "HOME="+filepath.Dir(bin))
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uid, Gid: gid}, Pdeathsig: syscall.SIGKILL}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestSandboxHostList ") || !strings.Contains(string(out), "--- PASS: TestSandboxHostListInputWait") ||
		!strings.Contains(string(out), "--- PASS: TestSandboxHostListStopReachesEscapedDescendant") || !strings.Contains(string(out), "--- PASS: TestSandboxHostListCrashRestart") {
		t.Fatalf("as uid %d: %v\n%s", uid, err, out)
	}
	t.Logf("as uid %d:\n%s", uid, out)
}
