package netjail

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	creackpty "github.com/creack/pty"

	"github.com/yieldshell/yieldshell/internal/netproxy"
	"github.com/yieldshell/yieldshell/internal/poll"
	"github.com/yieldshell/yieldshell/internal/sandbox"
)

func TestMain(m *testing.M) {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case HelperCommand:
			os.Exit(Main(os.Args[2:]))
		case "__probe":
			os.Exit(probe(os.Args[2:]))
		}
	}
	os.Exit(m.Run())
}

// resolver maps the test names: listed.test and unlisted.test are the
// upstream on 127.0.0.2.
type resolver map[string]netip.Addr

func (r resolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	if a, ok := r[host]; ok {
		return []netip.Addr{a}, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

// world is what a jailed test child may or may not reach: an HTTP server
// on 127.0.0.2 (listed.test) and a proxy serving on the host's loopback
// (the port a host-side proxy would have).
type world struct {
	upstream  int // port on 127.0.0.2
	hostProxy int // port on 127.0.0.1
	list      netproxy.List
}

func newWorld(t *testing.T) *world {
	ln, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Skipf("no 127.0.0.2 on this machine: %v", err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "hello from upstream")
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	list, err := netproxy.Parse("listed.test, 127.0.0.2")
	if err != nil {
		t.Fatal(err)
	}
	w := &world{upstream: ln.Addr().(*net.TCPAddr).Port, list: list}
	hp, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	w.hostProxy = hp.Addr().(*net.TCPAddr).Port
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		netproxy.New(netproxy.Config{Hosts: list, Resolver: w.resolver()}).Serve(ctx, hp)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return w
}

func (w *world) resolver() resolver {
	two := netip.MustParseAddr("127.0.0.2")
	return resolver{"listed.test": two, "unlisted.test": two}
}

// run starts path with argv in a jail whose proxy admits w's list, waits
// for it and returns its output and the proxy's denials.
func (w *world) run(t *testing.T, path string, argv ...string) (string, []netproxy.Denial) {
	out, d, _ := w.runConfined(t, nil, path, argv...)
	return out, d
}

// runConfined is run whose helper also confines the command by p (unless
// nil), returning the denials its Monitor named too.
func (w *world) runConfined(t *testing.T, p *sandbox.Policy, path string, argv ...string) (string, []netproxy.Denial, []sandbox.Denial) {
	t.Helper()
	px := netproxy.New(netproxy.Config{Hosts: w.list, Resolver: w.resolver()})
	j, err := New(px)
	if err != nil {
		t.Fatal(err)
	}
	if p != nil {
		j.Confine(p, sandbox.Probe(), "")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	cmd := j.command(exe, path, argv)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		j.Close()
		t.Fatalf("start: %v", err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := j.Serve(ctx); err != nil {
		cmd.Wait()
		j.Close()
		t.Fatalf("serve: %v (output %q)", err, out.String())
	}
	werr := cmd.Wait()
	if err := j.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	if werr != nil {
		t.Logf("%s: %v", path, werr)
	}
	d, _ := px.TakeDenials()
	m := j.Monitor()
	denied := m.Denied()
	m.Close()
	return out.String(), d, denied
}

// probes runs the test binary's probe mode in a jail and returns each
// probe's result line by probe.
func (w *world) probes(t *testing.T, probes ...string) (map[string]string, []netproxy.Denial) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	out, denials := w.run(t, exe, append([]string{exe, "__probe"}, probes...)...)
	got := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		p, result, _ := strings.Cut(line, " ")
		got[p] = result
	}
	return got, denials
}

// hostAddr is an address of this machine outside loopback, or "" when it
// has none.
func hostAddr() string {
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && !n.IP.IsLoopback() && n.IP.To4() != nil {
			return n.IP.String()
		}
	}
	return ""
}

func TestCheck(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := Check(ctx, exe); err != nil {
		t.Errorf("Check = %v on a machine where the jail works", err)
	}
	// A helper that cannot bring loopback up (no namespaces: this is not
	// the jail's own start) says so.
	if err := Check(ctx, "/nonexistent/yieldshell"); err == nil || !strings.Contains(err.Error(), "namespaces") {
		t.Errorf("Check(missing binary) = %v, want an error that names the namespaces", err)
	}
}

// TestServeFailsWhenTheHelperFails: a helper that cannot do its part
// (here: started without the namespaces, as an ordinary user could not
// bring loopback up; as root it would listen in the host's namespace, so
// the test gives it a bad descriptor instead) makes Serve fail with the
// helper's reason on the command's stderr, not hang.
func TestServeFailsWhenTheHelperFails(t *testing.T) {
	j, err := New(netproxy.New(netproxy.Config{}))
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	exe, _ := os.Executable()
	var out bytes.Buffer
	cmd := j.command(exe, "/bin/true", []string{"true"})
	cmd.Args[2] = "9" // not the socket
	cmd.Stderr = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := j.Serve(ctx); err == nil || !strings.Contains(err.Error(), "no listener") {
		t.Errorf("Serve = %v, want no listener", err)
	}
	cmd.Wait()
	if !strings.Contains(out.String(), "network sandbox") || cmd.ProcessState.ExitCode() != 126 {
		t.Errorf("helper exit %d, stderr %q", cmd.ProcessState.ExitCode(), out.String())
	}
}

// TestJailedProcessStaysReadable: the server still reads a jailed
// process's /proc entries (the input-wait probe reads its system call).
func TestJailedProcessStaysReadable(t *testing.T) {
	j, err := New(netproxy.New(netproxy.Config{}))
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	exe, _ := os.Executable()
	cat, err := exec.LookPath("cat")
	if err != nil {
		t.Skip("cat is not installed")
	}
	cmd := j.command(exe, cat, []string{"cat"})
	cmd.SysProcAttr.Setsid = true
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer stdin.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := j.Serve(ctx); err != nil {
		t.Fatal(err)
	}
	file := fmt.Sprintf("/proc/%d/syscall", cmd.Process.Pid)
	var last string
	poll.Until(t, 10*time.Second, "the jailed cat to be seen reading", func() bool {
		b, err := os.ReadFile(file)
		last = fmt.Sprint(string(b), err)
		return strings.HasPrefix(string(b), "0 ") // read(2)
	})
	t.Logf("%s: %s", file, last)
}

// TestJailUnderATerminal: a jailed command starts under a pseudo-terminal
// that becomes its controlling terminal, as pty starts every command.
func TestJailUnderATerminal(t *testing.T) {
	ptmx, tty, err := creackpty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminals: %v", err)
	}
	defer ptmx.Close()
	j, err := New(netproxy.New(netproxy.Config{}))
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("sh is not installed")
	}
	exe, _ := os.Executable()
	path, argv := j.Wrap(exe, 3, sh, []string{"sh", "-c", "tty; echo $HTTP_PROXY"})
	attr := &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0, Pdeathsig: syscall.SIGKILL}
	j.Apply(attr)
	p, err := os.StartProcess(path, argv, &os.ProcAttr{Files: []*os.File{tty, tty, tty, j.ChildFile()}, Sys: attr})
	tty.Close()
	if err != nil {
		t.Fatal(err)
	}
	defer p.Wait()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := j.Serve(ctx); err != nil {
		t.Fatal(err)
	}
	ptmx.SetReadDeadline(time.Now().Add(10 * time.Second))
	var out bytes.Buffer
	io.Copy(&out, ptmx) // until the terminal closes (EIO) or the deadline
	if !strings.Contains(out.String(), "/dev/pts/") || !strings.Contains(out.String(), "http://127.0.0.1:") {
		t.Errorf("output %q, want the terminal's name and the proxy", out.String())
	}
}

// TestHelperRefusesTheHostNetwork: a helper started without the
// namespaces (a start that forgot Apply) refuses to run the command rather
// than hand it the host's network. As an ordinary user it fails earlier,
// bringing loopback up.
func TestHelperRefusesTheHostNetwork(t *testing.T) {
	if len(hostAddr()) == 0 {
		t.Skip("this machine has only loopback")
	}
	j, err := New(netproxy.New(netproxy.Config{}))
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	exe, _ := os.Executable()
	var out bytes.Buffer
	cmd := j.command(exe, "/bin/sh", []string{"sh", "-c", "echo RAN"})
	cmd.SysProcAttr = &syscall.SysProcAttr{} // no namespaces
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := j.Serve(ctx); err == nil {
		t.Error("Serve succeeded for a helper in the host's network namespace")
	}
	cmd.Wait()
	if strings.Contains(out.String(), "RAN") || !strings.Contains(out.String(), "network sandbox") {
		t.Errorf("output %q: the command ran, or the helper did not say why not", out.String())
	}
}
