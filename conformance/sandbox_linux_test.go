package conformance

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// sandboxDenied returns an answer's sandbox.denied as "op path|address"
// strings, and its mode.
func sandboxDenied(t *testing.T, r result) (string, []string) {
	t.Helper()
	sb, ok := r.m["sandbox"].(map[string]any)
	if !ok {
		t.Fatalf("no sandbox in the answer: %s", r.text)
	}
	var list []struct{ Op, Path, Address string }
	b, _ := json.Marshal(sb["denied"])
	_ = json.Unmarshal(b, &list)
	var out []string
	for _, d := range list {
		out = append(out, strings.TrimSpace(d.Op+" "+d.Path+d.Address))
	}
	return sb["mode"].(string), out
}

// sandboxRoot makes a root with a git directory and a directory outside it.
func sandboxRoot(t *testing.T) (root, outside string) {
	base := t.TempDir()
	root, outside = filepath.Join(base, "root"), filepath.Join(base, "outside")
	for _, d := range []string{filepath.Join(root, ".git", "hooks"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return root, outside
}

// Issue 40 items 1, 3, 4: in workspace-write a command writes its root and
// TMPDIR only; what the kernel refused is named in the answer.
func TestSandboxWorkspaceWrite(t *testing.T) {
	root, outside := sandboxRoot(t)
	env := []string{"YIELDSHELL_SANDBOX=workspace-write", "YIELDSHELL_ALLOWED_CWDS=" + root, "MCP_YIELDSHELL_BLOCKED_SIDE_EFFECTS=,"}
	forEachProtocolInTurn(t, env, func(t *testing.T, s *server) {
		r := s.exec(`echo ok > in.txt && cat in.txt && echo t > "$TMPDIR/t" && cat "$TMPDIR/t"; `+
			`echo pwn > `+outside+`/x; echo pwn > .git/hooks/pre-commit; echo > /dev/tcp/127.0.0.1/9; echo done`,
			map[string]any{"cwd": root}).mustStatus(t, "completed")
		if got := r.str("stdout"); !strings.HasPrefix(got, "ok\nt\n") || !strings.HasSuffix(got, "done\n") {
			t.Errorf("stdout = %q", got)
		}
		for _, p := range []string{filepath.Join(outside, "x"), filepath.Join(root, ".git/hooks/pre-commit")} {
			if _, err := os.Stat(p); err == nil {
				t.Errorf("%s was written", p)
			}
		}
		mode, denied := sandboxDenied(t, r)
		want := []string{"open " + filepath.Join(outside, "x"), "open " + filepath.Join(root, ".git/hooks/pre-commit"), "socket AF_INET stream"}
		if mode != "workspace-write" || strings.Join(denied, "|") != strings.Join(want, "|") {
			t.Errorf("sandbox mode %q denied %q, want workspace-write %q", mode, denied, want)
		}
		// read-only tightens; off would loosen and is refused.
		r = s.exec(`echo x > in2.txt`, map[string]any{"cwd": root, "sandbox": "read-only"}).mustStatus(t, "completed")
		if _, denied := sandboxDenied(t, r); len(denied) != 1 || r.num("exit_code") == 0 {
			t.Errorf("read-only: exit %v, denied %q; want a refused write", r.m["exit_code"], denied)
		}
		r = s.exec(`true`, map[string]any{"cwd": root, "sandbox": "off"}).mustStatus(t, "failed_to_start")
		if r.str("rule") != "sandbox" {
			t.Errorf("loosening: rule %q, want sandbox (%s)", r.str("rule"), r.text)
		}
		ps := s.call("ps", nil)
		health, _ := ps.m["server"].(map[string]any)
		sb, _ := health["sandbox"].(map[string]any)
		if sb["mode"] != "workspace-write" || sb["landlock_abi"].(float64) < 1 || sb["seccomp"] != true {
			t.Errorf("ps server.sandbox = %v", sb)
		}
	})
}

// Issue 40 item 6: input-wait detection reads a confined program from
// outside, as before.
func TestSandboxInputWait(t *testing.T) {
	root, _ := sandboxRoot(t)
	env := []string{"YIELDSHELL_SANDBOX=workspace-write", "YIELDSHELL_ALLOWED_CWDS=" + root}
	forEachProtocolInTurn(t, env, func(t *testing.T, s *server) {
		r := s.exec(`read -p "Name? " n; echo "hi $n"`, map[string]any{"cwd": root, "yield_ms": 10000})
		if r.str("status") != "backgrounded" || r.m["waiting_for_input"] != true {
			t.Fatalf("want backgrounded, waiting for input: %s", r.text)
		}
		w := s.call("write", map[string]any{"process_id": r.str("process_id"), "input": "bob", "newline": true, "yield_ms": 5000})
		if !strings.Contains(w.str("stdout"), "hi bob") {
			t.Errorf("write answered %s", w.text)
		}
	})
}

// Issue 40 items 2 and 4: with a host list, a sandboxed command reaches
// a listed host through the proxy variables; an unlisted one is refused,
// and the answer names it (op connect, host, port, count) next to the
// kernel's file denials; sandbox.network says hosts. (The escapes, as
// root and as an ordinary user: internal/session's TestSandboxHostList.)
func TestSandboxHostList(t *testing.T) {
	fetch := `curl -sS --max-time 10 "$1"`
	if _, err := exec.LookPath("curl"); err != nil {
		if _, err := exec.LookPath("python3"); err != nil {
			t.Skip("neither curl nor python3 is installed")
		}
		fetch = `python3 -c 'import sys, urllib.request; print(urllib.request.urlopen(sys.argv[1], timeout=10).read().decode())' "$1" 2>&1 | tail -1`
	}
	listed, unlisted := serveOn(t, "127.0.0.2:0", "hello from listed"), serveOn(t, "127.0.0.2:0", "hello from unlisted")
	root, outside := sandboxRoot(t)
	env := []string{"YIELDSHELL_SANDBOX=workspace-write", "YIELDSHELL_ALLOWED_CWDS=" + root, "MCP_YIELDSHELL_BLOCKED_SIDE_EFFECTS=,",
		"YIELDSHELL_SANDBOX_NETWORK=127.0.0.2:" + listed}
	s := start(t, "2025-06-18", env...)
	r := s.exec(`fetch() { `+fetch+`; echo; }; fetch http://127.0.0.2:`+listed+`/; fetch http://127.0.0.2:`+unlisted+`/; echo pwn > `+outside+`/x`,
		map[string]any{"cwd": root, "yield_ms": 30000}).mustStatus(t, "completed")
	if out := r.str("stdout"); !strings.Contains(out, "hello from listed") || strings.Contains(out, "hello from unlisted") {
		t.Errorf("stdout %q: want the listed host only", out)
	}
	sb, _ := r.m["sandbox"].(map[string]any)
	type denial struct {
		Op, Path, Host, Reason string
		Port, Count            int
	}
	var denied []denial
	b, _ := json.Marshal(sb["denied"])
	_ = json.Unmarshal(b, &denied)
	port, _ := strconv.Atoi(unlisted)
	if sb["network"] != "hosts" || !slices.Contains(denied, denial{Op: "connect", Host: "127.0.0.2", Port: port, Reason: "not listed", Count: 1}) ||
		!slices.Contains(denied, denial{Op: "open", Path: filepath.Join(outside, "x"), Count: 1}) {
		t.Errorf("sandbox = %v; want network hosts, the unlisted connect and the write named", sb)
	}
}

// serveOn serves body over HTTP on addr until the test ends; it returns
// the port.
func serveOn(t *testing.T, addr, body string) string {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Skipf("cannot listen on %s: %v", addr, err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, body) })}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
}

// Issue 40 items 2 and 5: a host list that does not parse refuses the
// start, naming the entry.
func TestSandboxHostListRefusesABadEntry(t *testing.T) {
	cmd := exec.Command(binPath)
	cmd.Env = append(os.Environ(), "YIELDSHELL_SANDBOX=workspace-write", "YIELDSHELL_SANDBOX_NETWORK=example.com,*.com")
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), `YIELDSHELL_SANDBOX_NETWORK: parse host list: entry "*.com"`) {
		t.Errorf("start with a bad host list: %v\n%s", err, out)
	}
}

// Issue 40 item 3: a confined command cannot reach the persistent server
// through its socket (which would run commands outside the sandbox).
func TestSandboxDaemonUnreachable(t *testing.T) {
	root, _ := sandboxRoot(t)
	env := persistRuntime(t, "YIELDSHELL_SANDBOX=workspace-write", "YIELDSHELL_ALLOWED_CWDS="+root)
	s := start(t, "2025-06-18", env...)
	r := s.exec(`"$YS" ps >/dev/null 2>&1 && echo REACHED || echo refused`, map[string]any{"cwd": root, "env": map[string]string{"YS": binPath}}).mustStatus(t, "completed")
	if got := r.str("stdout"); got != "refused\n" {
		t.Errorf("yieldshell ps from a confined command: %q, want refused", got)
	}
	// The same from outside the sandbox works (the test is sound).
	cmd := exec.Command(binPath, "ps")
	cmd.Env = append(os.Environ(), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("yieldshell ps from outside: %v\n%s", err, out)
	}
}

// Issue 40 item 6: ordinary work in a root needs no configuration:
// git commit, go build (its caches), make, npm ci from a local tarball,
// a Python venv with pip installing a local wheel. Each step's tool is
// needed; a missing one is skipped by name.
func TestSandboxOrdinaryWork(t *testing.T) {
	root, _ := sandboxRoot(t)
	os.RemoveAll(filepath.Join(root, ".git"))
	// git init runs outside (a sandboxed one may not write .git/hooks).
	if out, err := exec.Command("git", "init", "-q", root).CombinedOutput(); err != nil {
		t.Skipf("git init: %v %s", err, out)
	}
	env := []string{"YIELDSHELL_SANDBOX=workspace-write", "YIELDSHELL_ALLOWED_CWDS=" + root, "MCP_YIELDSHELL_BLOCKED_SIDE_EFFECTS=,",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "GOTOOLCHAIN=local"}
	s := start(t, "2025-06-18", env...)
	for _, step := range ordinaryWork {
		t.Run(step.name, func(t *testing.T) {
			for _, tool := range step.needs {
				if _, err := exec.LookPath(tool); err != nil {
					t.Skipf("%s not installed", tool)
				}
			}
			dir := filepath.Join(root, step.name)
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			files := map[string]string{}
			for name, body := range step.files {
				files[filepath.Join(dir, name)] = body
			}
			writeTree(t, files)
			if step.prepare != nil {
				step.prepare(t, dir)
			}
			r := s.exec(step.cmd, map[string]any{"cwd": dir, "yield_ms": 120000, "tty": false}).mustStatus(t, "completed")
			_, denied := sandboxDenied(t, r)
			// Refusals the tools shrug off, with the network off: the go
			// command counts its runs in the user's config directory
			// (telemetry), node lists the interfaces (netlink), pip asks
			// whether IPv6 sockets exist.
			denied = slices.DeleteFunc(denied, func(d string) bool {
				return strings.Contains(d, "/go/telemetry/") || strings.HasPrefix(d, "socket ")
			})
			if r.str("stdout") != step.want || len(denied) > 0 {
				t.Errorf("stdout %q stderr %q, denied %q; want stdout %q", r.str("stdout"), r.str("stderr"), denied, step.want)
			}
		})
	}
}

// ordinaryWork is the work TestSandboxOrdinaryWork does in a root.
var ordinaryWork = []struct {
	name    string
	needs   []string
	files   map[string]string
	prepare func(t *testing.T, dir string) // outside the sandbox
	cmd     string
	want    string
}{
	{name: "git", needs: []string{"git"}, files: map[string]string{"a.txt": "a\n"},
		cmd: `git add -A && git commit -qm first && git log --oneline | wc -l`, want: "1\n"},
	{name: "go", needs: []string{"go"}, files: map[string]string{
		"go.mod":  "module hello\n\ngo 1.22\n",
		"main.go": "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"built\") }\n"},
		cmd: `go build -o hello . && ./hello`, want: "built\n"},
	{name: "make", needs: []string{"make"}, files: map[string]string{"Makefile": "all:\n\techo made > made.txt\n"},
		cmd: `make -s && cat made.txt`, want: "made\n"},
	{name: "npm", needs: []string{"npm", "node"}, files: map[string]string{
		"dep/package.json": `{"name":"dep","version":"1.0.0","main":"index.js"}`,
		"dep/index.js":     `module.exports = "from a tarball"`,
		"package.json":     `{"name":"app","version":"1.0.0","dependencies":{"dep":"file:dep-1.0.0.tgz"}}`},
		prepare: prepareNpm,
		cmd:     `npm ci --offline --no-audit --no-fund >/dev/null && node -p 'require("dep")'`, want: "from a tarball\n"},
	{name: "python", needs: []string{"python3"}, prepare: prepareWheel,
		cmd:  `python3 -m venv .venv && .venv/bin/pip install -q --no-index --find-links wheels demo-pkg && .venv/bin/python -c 'import demo_pkg; print(demo_pkg.X)'`,
		want: "from a wheel\n"},
}

// prepareNpm packs the local dependency and locks it, then leaves
// node_modules for the sandboxed npm ci to make.
func prepareNpm(t *testing.T, dir string) {
	run := func(args ...string) {
		cmd := exec.Command("npm", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "npm_config_cache="+t.TempDir())
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Skipf("npm %s: %v %s", args[0], err, out)
		}
	}
	run("pack", "--silent", "./dep")
	run("install", "--offline", "--no-audit", "--no-fund")
	if err := os.RemoveAll(filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
}

// prepareWheel writes wheels/demo_pkg-1.0-py3-none-any.whl: a wheel is a
// zip of the module and its dist-info, RECORD hashing the rest.
func prepareWheel(t *testing.T, dir string) {
	const info = "demo_pkg-1.0.dist-info/"
	files := [][2]string{
		{"demo_pkg/__init__.py", "X = 'from a wheel'\n"},
		{info + "METADATA", "Metadata-Version: 2.1\nName: demo-pkg\nVersion: 1.0\n"},
		{info + "WHEEL", "Wheel-Version: 1.0\nGenerator: yieldshell-test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"},
	}
	var record strings.Builder
	for _, f := range files {
		sum := sha256.Sum256([]byte(f[1]))
		fmt.Fprintf(&record, "%s,sha256=%s,%d\n", f[0], base64.RawURLEncoding.EncodeToString(sum[:]), len(f[1]))
	}
	record.WriteString(info + "RECORD,,\n")
	files = append(files, [2]string{info + "RECORD", record.String()})
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	for _, f := range files {
		w, err := z.Create(f[0])
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(w, f[1])
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	writeTree(t, map[string]string{filepath.Join(dir, "wheels", "demo_pkg-1.0-py3-none-any.whl"): buf.String()})
}

// Issue 40 items 1, 4, 5 in the shell-yeah toolset: start_shell tightens,
// its answer and health_check say what confines it.
func TestSandboxShellYeah(t *testing.T) {
	root, outside := sandboxRoot(t)
	env := []string{"YIELDSHELL_TOOLSET=shell-yeah", "YIELDSHELL_SANDBOX_NETWORK=on"}
	s := start(t, "2025-06-18", env...)
	r := s.call("start_shell", map[string]any{"command": "echo x > " + outside + "/f; echo done; sleep 30",
		"workingDirectory": root, "sandbox": "workspace-write", "verification_pattern": "done"})
	if mode, denied := sandboxDenied(t, r); mode != "workspace-write" || len(denied) != 1 || denied[0] != "open "+filepath.Join(outside, "f") {
		t.Errorf("start_shell sandbox %q %q: %s", mode, denied, r.text)
	}
	h := s.call("health_check", nil)
	sb, _ := h.m["sandbox"].(map[string]any)
	if sb["mode"] != "off" || sb["network"] != "on" || sb["seccomp"] != true {
		t.Errorf("health_check sandbox = %v", sb)
	}
	s.call("stop_shell", map[string]any{"label": r.str("label")})
}
