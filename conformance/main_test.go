package conformance

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/yieldshell/yieldshell/internal/poll"
)

// binPath is the yieldshell binary built by TestMain.
var binPath string

// helperEnv names the variable through which commands find the test binary,
// which plays the child processes (see helpers_test.go).
const helperEnv = "YS_HELPER_BIN"

// prebuiltEnv names a yieldshell binary to test instead of building one.
const prebuiltEnv = "YS_CONFORMANCE_BIN"

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "ys-helper" {
		os.Exit(runHelper(os.Args[2:]))
	}
	waitBound()
	dir, err := os.MkdirTemp("", "yieldshell-conformance")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binPath = filepath.Join(dir, "yieldshell")
	if bin := os.Getenv(prebuiltEnv); bin != "" {
		binPath = bin // a cross-built binary, e.g. under wine (.ci/wine)
	} else {
		args := []string{"build", "-o", binPath}
		if raceEnabled {
			args = append(args, "-race")
		}
		build := exec.Command("go", append(args, "../cmd/yieldshell")...)
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "building yieldshell:", err)
			os.Exit(1)
		}
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// suiteParallel is how many parallel cases run at once unless -parallel
// says otherwise: a case mostly waits on the programs it runs (a -short
// run used under half a core of two), so more than GOMAXPROCS of them
// keep the machine busy.
const suiteParallel = 4

// waitBound parses the test flags and, unless -parallel was given, lets
// suiteParallel cases run at once.
func waitBound() {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		_ = flag.Set("test.parallel", strconv.Itoa(max(suiteParallel, runtime.GOMAXPROCS(0))))
	}
}

// slow skips t under -short: an end-to-end case that waits out real
// seconds (throttle windows, quiet periods, idle timers) or drives every
// tool, which the full suite runs. why says what it waits on.
func slow(t *testing.T, why string) {
	t.Helper()
	if testing.Short() {
		t.Skipf("waits on %s: runs without -short", why)
	}
}

// protocols are the versions every test runs at: what today's clients send
// in initialize, and the SDK's default (the stateless 2026-07-28 protocol).
var protocols = []string{"2025-06-18", ""}

func protoName(v string) string {
	if v == "" {
		return "default"
	}
	return v
}

// server is one running yieldshell binary and a client session to it.
type server struct {
	t   *testing.T
	cs  *mcp.ClientSession
	cmd *exec.Cmd
}

// forEachProtocol runs f against a fresh server at each protocol version,
// the versions side by side: each has a server of its own, and a case
// mostly waits on the programs it runs. env entries ("KEY=value") are
// added to the server's environment.
func forEachProtocol(t *testing.T, env []string, f func(t *testing.T, s *server)) {
	t.Helper()
	eachProtocol(t, env, true, f)
}

// forEachProtocolInTurn is forEachProtocol one version after the other,
// for a case whose two servers share something outside themselves (a
// directory the test made: the log directory, the cwd). The case still
// runs beside other cases.
func forEachProtocolInTurn(t *testing.T, env []string, f func(t *testing.T, s *server)) {
	t.Helper()
	eachProtocol(t, env, false, f)
}

func eachProtocol(t *testing.T, env []string, parallel bool, f func(t *testing.T, s *server)) {
	t.Helper()
	if !strings.Contains(t.Name(), "/") {
		t.Parallel() // a whole test: it runs beside the others too
	}
	for _, v := range protocols {
		t.Run(protoName(v), func(t *testing.T) {
			if parallel {
				t.Parallel()
			}
			f(t, start(t, v, env...))
		})
	}
}

// statSources makes the go command's test cache depend on the server's
// sources: it keys results by the files a test looks at (only once m.Run is
// under way), and this suite runs a binary the cache knows nothing about.
var statSources = sync.OnceFunc(func() {
	_ = filepath.WalkDir("..", func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (strings.HasSuffix(path, ".go") || filepath.Base(path) == "go.mod") {
			_, _ = os.Stat(path)
		}
		return nil
	})
})

// start launches the binary and connects to it.
func start(t *testing.T, version string, env ...string) *server {
	t.Helper()
	s, err := connect(t, version, env...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// connect is start without failing the test, for goroutines.
func connect(t *testing.T, version string, env ...string) (*server, error) {
	return connectClient(t, mcp.NewClient(&mcp.Implementation{Name: "conformance", Version: "0"}, nil), version, env...)
}

// connectClient is connect with a client of the caller's (one that
// handles progress notifications, say).
func connectClient(t *testing.T, client *mcp.Client, version string, env ...string) (*server, error) {
	statSources()
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(binPath)
	// A race-enabled binary otherwise lingers a second at exit.
	cmd.Env = append(os.Environ(), helperEnv+"="+self, "GORACE=atexit_sleep_ms=0")
	cmd.Env = append(cmd.Env, env...)
	cmd.Stderr = testWriter{t}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 5 * time.Second},
		&mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		return nil, fmt.Errorf("connecting to yieldshell: %w", err)
	}
	s := &server{t: t, cs: cs, cmd: cmd}
	t.Cleanup(func() {
		// Closing stdin is how a client goes away: the server must end every
		// process it started and exit.
		if err := cs.Close(); err != nil {
			t.Logf("closing session: %v", err)
		}
	})
	return s, nil
}

// testWriter sends the server's stderr to the test log.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Helper()
	defer func() { _ = recover() }() // the test may have finished; drop late logs
	if strings.Contains(string(p), "WARNING: DATA RACE") {
		w.t.Errorf("the server has a data race:\n%s", p)
	} else {
		w.t.Logf("server: %s", strings.TrimRight(string(p), "\n"))
	}
	return len(p), nil
}

// result is a decoded tool answer.
type result struct {
	m       map[string]any
	isError bool
	text    string
}

// call invokes a tool and decodes its structured answer, checking that the
// text content carries the same JSON.
func (s *server) call(tool string, args map[string]any) result {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(s.t.Context(), 70*time.Second)
	defer cancel()
	res, err := s.cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		s.t.Fatalf("%s(%v): %v", tool, args, err)
	}
	r := result{isError: res.IsError}
	if len(res.Content) > 0 {
		if tc, ok := res.Content[0].(*mcp.TextContent); ok {
			r.text = tc.Text
		}
	}
	if res.StructuredContent == nil {
		r.m = map[string]any{}
		return r
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		s.t.Fatal(err)
	}
	if err := json.Unmarshal(b, &r.m); err != nil {
		s.t.Fatal(err)
	}
	var fromText any // an object, or list_shells' bare array
	if err := json.Unmarshal([]byte(r.text), &fromText); err != nil {
		s.t.Errorf("%s: text content is not the JSON answer: %v\n%s", tool, err, r.text)
	}
	return r
}

// exec runs a command with side_effects ["NONE"] unless args say otherwise.
func (s *server) exec(command string, args map[string]any) result {
	s.t.Helper()
	a := map[string]any{"command": command, "side_effects": []string{"NONE"}}
	for k, v := range args {
		a[k] = v
	}
	r := s.call("exec", a)
	if id := r.str("process_id"); id != "" && r.str("status") == "backgrounded" {
		s.t.Cleanup(func() { s.stopQuietly(id) })
	}
	return r
}

// stopQuietly ends a process at test end whatever state it is in.
func (s *server) stopQuietly(id string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, _ = s.cs.CallTool(ctx, &mcp.CallToolParams{Name: "stop", Arguments: map[string]any{
		"process_id": id, "signal": "SIGKILL", "force_after_ms": 100}})
}

func (r result) str(k string) string {
	s, _ := r.m[k].(string)
	return s
}

func (r result) num(k string) float64 {
	f, _ := r.m[k].(float64)
	return f
}

func (r result) has(k string) bool {
	_, ok := r.m[k]
	return ok
}

func (r result) isNull(k string) bool {
	v, ok := r.m[k]
	return ok && v == nil
}

// mustStatus fails unless the answer has the wanted status.
func (r result) mustStatus(t *testing.T, want string) result {
	t.Helper()
	if got := r.str("status"); got != want {
		t.Fatalf("status = %q, want %q; answer: %s", got, want, r.text)
	}
	return r
}

// eventually calls f until it reports true, failing after within.
func eventually(t *testing.T, within time.Duration, what string, f func() bool) {
	t.Helper()
	poll.Until(t, within, what, f)
}

// readUntil reads a process's output until it contains want.
func (s *server) readUntil(id, want string) string {
	s.t.Helper()
	var out string
	eventually(s.t, 10*time.Second, fmt.Sprintf("%q in the output of %s", want, id), func() bool {
		r := s.call("read", map[string]any{"process_id": id})
		out = r.str("stdout") + r.str("stderr")
		return strings.Contains(out, want)
	})
	return out
}

// alive reports whether pid exists and is not a zombie.
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || len(s) < i+3 || s[i+2] != 'Z'
}

// groupMembers lists live processes whose process group is pgid.
func groupMembers(pgid int) []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		// fields after the command: state ppid pgrp ...
		if len(f) > 2 && f[0] != "Z" && f[2] == strconv.Itoa(pgid) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// killPidFile kills the process whose pid a command wrote to path, at test
// end: for descendants that deliberately escape their process group.
func killPidFile(t *testing.T, path string) {
	t.Cleanup(func() {
		b, err := os.ReadFile(path)
		if err != nil {
			return
		}
		if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && pid > 0 {
			if p, err := os.FindProcess(pid); err == nil {
				_ = p.Kill()
			}
		}
	})
}

// helper returns a shell command that runs the named helper program.
func helper(name string, args ...string) string {
	return strings.TrimSpace(fmt.Sprintf("exec \"$%s\" ys-helper %s %s", helperEnv, name, strings.Join(args, " ")))
}

// newCmd returns a command running the binary, ended with the test.
func newCmd(t *testing.T, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(t.Context(), binPath, args...)
	cmd.WaitDelay = 5 * time.Second
	return cmd
}
