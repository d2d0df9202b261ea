//go:build unix

package conformance

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Issue 9, "sessions that outlive the client": with YIELDSHELL_PERSIST=1
// the stdio process is a bridge to a per-user server that owns the
// processes, so a client restart (the bridge killed, a new one started)
// finds them still running, by id and by name, with their whole log.

// persistRuntime gives a test its own runtime directory (so its own
// server) and, at cleanup, stops that server and checks its log for data
// races. It returns the environment for bridges and commands.
func persistRuntime(t testing.TB, env ...string) []string {
	t.Helper()
	// A short path: Unix socket paths are limited to about 100 bytes.
	dir, err := os.MkdirTemp("", "ys")
	if err != nil {
		t.Fatal(err)
	}
	// The idle exit is short, so that even a test binary killed before its
	// cleanup (go test's timeout) leaves no server behind for long; a
	// test's own setting comes later and wins.
	env = append([]string{"YIELDSHELL_RUNTIME_DIR=" + dir, "YIELDSHELL_PERSIST=1", "YIELDSHELL_SERVER_IDLE_MS=60000"}, env...)
	t.Cleanup(func() {
		// t.Context() is already done here.
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, binPath, "server", "stop")
		cmd.Env = append(os.Environ(), env...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("server stop: %v\n%s", err, out)
		}
		logs, _ := os.ReadFile(filepath.Join(dir, "yieldshell", "server.log"))
		if bytes.Contains(logs, []byte("WARNING: DATA RACE")) {
			t.Errorf("the persistent server has a data race:\n%s", logs)
		} else if t.Failed() {
			t.Logf("server log:\n%s", logs)
		}
		os.RemoveAll(dir)
	})
	return env
}

// serverPid asks `yieldshell server status` for the running server's pid
// (0: none runs).
func serverPid(t *testing.T, env []string) int {
	t.Helper()
	cmd := newCmd(t, "server", "status")
	cmd.Env = append(os.Environ(), env...)
	out, _ := cmd.Output()
	for _, l := range strings.Split(string(out), "\n") {
		if v, ok := strings.CutPrefix(l, "pid:"); ok {
			pid, _ := strconv.Atoi(strings.TrimSpace(v))
			return pid
		}
	}
	return 0
}

// killBridge ends a bridge the way a client restart does: outright.
func killBridge(t *testing.T, s *server) {
	t.Helper()
	if err := s.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, "the bridge to exit", func() bool { return !alive(s.cmd.Process.Pid) })
}

// Spec: shell-yeah Key Capabilities: "Shells persist and can be checked or controlled in future chats."
func TestPersistSurvivesClientRestart(t *testing.T) {
	env := persistRuntime(t)
	first := start(t, "2025-06-18", env...)
	r := first.call("exec", map[string]any{"command": helper("devserver", "0", devURL), "side_effects": []string{"NONE"},
		"name": "web", "wait_for": `^ready`}).mustStatus(t, "backgrounded")
	id, pid := r.str("process_id"), int(r.num("pid"))
	killBridge(t, first)

	for _, v := range protocols {
		t.Run(protoName(v), func(t *testing.T) {
			s := start(t, v, env...)
			ps := s.call("ps", nil)
			found := false
			for _, p := range ps.m["processes"].([]any) {
				e := p.(map[string]any)
				if e["process_id"] == id {
					found = e["status"] == "running" && e["name"] == "web"
				}
			}
			if !found {
				t.Fatalf("ps after the client restart does not show %s running as web: %s", id, ps.text)
			}
			for _, handle := range []string{id, "web"} {
				rd := s.call("read", map[string]any{"process_id": handle, "since_seq": 0})
				if out := rd.str("stdout"); !strings.Contains(out, "dev server starting") || !strings.Contains(out, "ready") {
					t.Errorf("read %s since_seq 0 after the restart: %q", handle, out)
				}
			}
			seq := s.call("read", map[string]any{"process_id": "web"}).num("next_seq")
			s.call("write", map[string]any{"process_id": "web", "input": "say still-here-" + protoName(v), "newline": true})
			w := s.call("wait", map[string]any{"process_id": "web", "since_seq": seq, "until": "^still-here", "timeout_ms": 10000})
			if w.str("yield_reason") != "pattern" {
				t.Errorf("wait until after write: %s", w.text)
			}
			if !alive(pid) {
				t.Errorf("the process %d died with the bridge", pid)
			}
			killBridge(t, s) // the next client restart
		})
	}
	s := start(t, "2025-06-18", env...)
	if st := s.call("stop", map[string]any{"process_id": "web"}); st.m["stopped"] != true {
		t.Errorf("stop after the restarts: %s", st.text)
	}
}

// Spec: README Persistent sessions: one persistent server per user, shared by every client that bridges to it.
func TestPersistTwoBridgesAtOnce(t *testing.T) {
	env := persistRuntime(t)
	// Both start while no server runs: exactly one server must result.
	var wg sync.WaitGroup
	bridges := make([]*server, 2)
	errs := make([]error, 2)
	for i := range bridges {
		wg.Go(func() { bridges[i], errs[i] = connect(t, "2025-06-18", env...) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	a, b := bridges[0], bridges[1]
	id := a.exec(helper("devserver", "0", devURL), map[string]any{"name": "shared", "wait_for": `^ready`}).
		mustStatus(t, "backgrounded").str("process_id")
	rd := b.call("read", map[string]any{"process_id": "shared", "since_seq": 0})
	if rd.str("process_id") != id || !strings.Contains(rd.str("stdout"), "ready") {
		t.Errorf("the second client reads something else: %s", rd.text)
	}
	if dup := b.exec("true", map[string]any{"name": "shared"}); dup.str("existing_process_id") != id {
		t.Errorf("the second client could start a duplicate of the first's name: %s", dup.text)
	}
	b.call("write", map[string]any{"process_id": id, "input": "say from-b", "newline": true})
	a.readUntil(id, "from-b")
}

// Spec: README: YIELDSHELL_SERVER_IDLE_MS "The persistent server exits after this long with no running process and no client".
func TestPersistIdleExit(t *testing.T) {
	slow(t, "the persistent server's idle timer")
	// Long enough that a loaded machine gets the first bridge connected
	// before the server, idle until then, gives up.
	env := persistRuntime(t, "YIELDSHELL_SERVER_IDLE_MS=1000")
	s := start(t, "2025-06-18", env...)
	id := s.exec(helper("devserver", "0", devURL), map[string]any{"wait_for": `^ready`}).mustStatus(t, "backgrounded").str("process_id")
	pid := serverPid(t, env)
	if pid == 0 {
		t.Fatal("no server runs")
	}
	killBridge(t, s)
	// A running process keeps it up, with no client.
	select {
	case <-time.After(2500 * time.Millisecond): // idle periods, to show it did not exit
	case <-t.Context().Done():
	}
	if !alive(pid) {
		t.Fatal("the server exited while a process ran")
	}
	s = start(t, "2025-06-18", env...)
	s.call("stop", map[string]any{"process_id": id})
	s.cs.Close()
	eventually(t, 10*time.Second, "the idle server to exit", func() bool { return !alive(pid) })
	if _, err := os.Stat(filepath.Join(strings.TrimPrefix(env[0], "YIELDSHELL_RUNTIME_DIR="), "yieldshell", "server.sock")); !os.IsNotExist(err) {
		t.Errorf("the socket is still there after the idle exit: %v", err)
	}
}

// Spec: README: "yieldshell server stop" ends the server "and every process it runs".
func TestPersistServerStopLeavesNoSurvivors(t *testing.T) {
	env := persistRuntime(t)
	dir := t.TempDir()
	killPidsAtCleanup(t, dir)
	s := start(t, "2025-06-18", env...)
	dev := s.exec(helper("devserver", "0", devURL), map[string]any{"wait_for": `^ready`}).mustStatus(t, "backgrounded")
	s.exec("sleep 60 & echo $! > "+dir+"/a.pid; setsid sh -c 'echo $$ > "+dir+"/b.pid; exec sleep 60' & wait", map[string]any{"yield_ms": 0})
	var pids []int
	eventually(t, 10*time.Second, "the pid files", func() bool {
		var ok bool
		pids, ok = readPids(dir, 2)
		return ok
	})
	pids = append(pids, int(dev.num("pid")), serverPid(t, env))
	killBridge(t, s)
	if out, err := runBin(t, env, "server", "stop"); err != nil {
		t.Fatalf("server stop: %v\n%s", err, out)
	}
	// server stop returns once the server has closed every descriptor, the
	// last step of its exit, after it ended every process: nothing it ran
	// may be left, and the server itself is at most finishing its exit.
	server := pids[len(pids)-1]
	if left := survivors(pids[:len(pids)-1]); len(left) > 0 {
		t.Errorf("alive after server stop: %v (of %v)", left, pids)
	}
	eventually(t, 2*time.Second, "the server process to be gone", func() bool { return !alive(server) })
	if pid := serverPid(t, env); pid != 0 {
		t.Errorf("a server still answers: pid %d", pid)
	}
}

// TestPersistVersionMismatch: a bridge of another version replaces an idle
// server, and refuses, saying what to do, when the server runs processes.
//
// Spec: README Persistent sessions: versions are never mixed; an idle server of another version is replaced.
func TestPersistVersionMismatch(t *testing.T) {
	env := persistRuntime(t)
	other := filepath.Join(t.TempDir(), "yieldshell-other")
	build := exec.Command("go", "build", "-ldflags", "-X main.version=9.9.9-other", "-o", other, "../cmd/yieldshell")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building another version: %v\n%s", err, out)
	}
	runOther := func(args ...string) (string, error) {
		cmd := exec.CommandContext(t.Context(), other, args...)
		cmd.Env = append(os.Environ(), env...)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if out, err := runOther("server", "start"); err != nil {
		t.Fatalf("starting the other version: %v\n%s", err, out)
	}
	old := serverPid(t, env)
	// Idle: replaced.
	s := start(t, "2025-06-18", env...)
	if v := s.call("ps", nil).m["server"].(map[string]any)["version"]; v == "9.9.9-other" {
		t.Fatalf("the bridge talks to the other version")
	}
	if alive(old) {
		t.Errorf("the idle server of the other version (pid %d) is still alive", old)
	}
	s.exec(helper("devserver", "0", devURL), map[string]any{"wait_for": `^ready`}).mustStatus(t, "backgrounded")
	// Busy: the other version refuses, and says how to go on.
	cmd := exec.CommandContext(t.Context(), other)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = strings.NewReader("")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Errorf("a bridge of another version against a busy server: %v", err)
	}
	if msg := stderr.String(); !strings.Contains(msg, "9.9.9-other") || !strings.Contains(msg, "yieldshell server stop") {
		t.Errorf("the refusal does not say what to do: %q", msg)
	}
	if s.call("ps", nil).isError {
		t.Error("the server stopped answering")
	}
}

// TestPeopleViews: ps and logs show a person what the agent sees.
//
// Spec: README: "yieldshell ps", "yieldshell logs ID|NAME [-f]" show a person the persistent server's processes.
func TestPeopleViews(t *testing.T) {
	env := persistRuntime(t)
	s := start(t, "2025-06-18", env...)
	id := s.exec(helper("devserver", "0", devURL), map[string]any{"name": "web", "wait_for": `^ready`}).
		mustStatus(t, "backgrounded").str("process_id")
	run := func(args ...string) string {
		t.Helper()
		cmd := newCmd(t, args...)
		cmd.Env = append(os.Environ(), env...)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		return string(out)
	}
	if ps := run("ps"); !strings.Contains(ps, id) || !strings.Contains(ps, "web") || !strings.Contains(ps, "running") {
		t.Errorf("ps:\n%s", ps)
	}
	if logs := run("logs", "web"); !strings.HasPrefix(logs, "dev server starting\n") || !strings.Contains(logs, "ready\n") {
		t.Errorf("logs web:\n%s", logs)
	}

	// -f follows until the process ends.
	cmd := newCmd(t, "logs", "web", "-f")
	cmd.Env = append(os.Environ(), env...)
	var out syncBuffer
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, "logs -f to print the log", func() bool { return strings.Contains(out.String(), "ready") })
	s.call("write", map[string]any{"process_id": "web", "input": "say followed-line", "newline": true})
	eventually(t, 10*time.Second, "logs -f to print the new line", func() bool { return strings.Contains(out.String(), "followed-line") })
	s.call("write", map[string]any{"process_id": "web", "input": "quit", "newline": true})
	if err := cmd.Wait(); err != nil {
		t.Errorf("logs -f: %v", err)
	}
}

// A secret in a later bridge's environment, which the persistent server
// was started without, never reaches that bridge's client unredacted: the
// bridge is refused, naming the variable and not its value, while the
// server is busy; an idle server is replaced by one started from the
// bridge's environment, which redacts it.
// Spec: issue 30 item 7: "secrets of a later bridge (refuse the bridge or redact, never fail open)".
func TestPersistLaterBridgesSecretIsNeverShown(t *testing.T) {
	const secret = "later-bridge-secret-4242"
	env := persistRuntime(t)
	file := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(file, []byte(secret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	first := start(t, "2025-06-18", env...) // starts the server without the secret
	first.exec("true", nil).mustStatus(t, "completed")
	later := append(append([]string{}, env...), "MY_API_TOKEN="+secret)

	if s, err := connect(t, "2025-06-18", later...); err == nil {
		r := s.exec("cat "+file, nil)
		if strings.Contains(r.text, secret) {
			t.Fatalf("a secret of the later bridge reached its client: %s", r.text)
		}
	}
	cmd := newCmd(t)
	cmd.Env = append(os.Environ(), later...)
	cmd.Stdin = strings.NewReader("")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err == nil {
		t.Errorf("the later bridge was not refused")
	}
	msg := stderr.String()
	if !strings.Contains(msg, "MY_API_TOKEN") || !strings.Contains(msg, "yieldshell server stop") || strings.Contains(msg, secret[:12]) {
		t.Errorf("the refusal does not name the variable and the way on, or shows the value: %q", msg)
	}
	if first.call("ps", nil).isError {
		t.Error("the server stopped answering its first client")
	}

	// Idle (no client, nothing running): replaced, and the new server
	// redacts the secret.
	killBridge(t, first)
	eventually(t, 10*time.Second, "the server to see no client", func() bool {
		st := newCmd(t, "server", "status")
		st.Env = append(os.Environ(), env...)
		out, _ := st.Output()
		return strings.Contains(string(out), "clients:   0")
	})
	s := start(t, "2025-06-18", later...)
	r := s.exec("cat "+file, nil).mustStatus(t, "completed")
	if strings.Contains(r.text, secret) || !strings.Contains(r.str("stdout"), "[REDACTED:MY_API_TOKEN]") {
		t.Errorf("the replacing server does not redact the secret: %s", r.text)
	}
}

// TestPersistOneServerWhateverTheEnvironment: the runtime directory does
// not follow XDG_RUNTIME_DIR or TMPDIR, which a client strips and a
// desktop terminal sets: a client started without them and one started
// with them share one server, and the CLI in a terminal with other values
// finds it (issue 41 item 4).
func TestPersistOneServerWhateverTheEnvironment(t *testing.T) {
	env := persistRuntime(t)
	elsewhere := t.TempDir()
	first := start(t, "2025-06-18", append([]string{"XDG_RUNTIME_DIR=", "TMPDIR="}, env...)...)
	id := first.call("exec", map[string]any{"command": "sleep 60", "side_effects": []string{"NONE"}, "yield_ms": 0}).str("process_id")
	second := start(t, "2025-06-18", append([]string{"XDG_RUNTIME_DIR=" + elsewhere, "TMPDIR=" + elsewhere}, env...)...)
	if ps := second.call("ps", nil); !strings.Contains(ps.text, id) {
		t.Errorf("the second client does not see the first one's process %s: %s", id, ps.text)
	}
	cmd := newCmd(t, "ps")
	cmd.Env = append(os.Environ(), append([]string{"XDG_RUNTIME_DIR=" + t.TempDir(), "TMPDIR=" + t.TempDir()}, env...)...)
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), id) {
		t.Errorf("yieldshell ps from a terminal with other XDG_RUNTIME_DIR and TMPDIR: %v\n%s", err, out)
	}
}
