package release

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// root is the repository; the tests read it and build from it.
const root = "../"

// A build of this machine's target, shared by the tests.
var host struct {
	once sync.Once
	dir  string
	err  error
}

func TestMain(m *testing.M) {
	// The go command caches a test's result by the files it opens; the
	// builds read files this process does not, so open them all.
	_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if err == nil && !d.IsDir() {
			_, _ = os.Stat(path)
		}
		return nil
	})
	tmp, err := os.MkdirTemp("", "yieldshell-release-")
	if err != nil {
		panic(err)
	}
	host.dir = filepath.Join(tmp, "dist")
	code := m.Run()
	os.RemoveAll(tmp)
	os.Exit(code)
}

func target() string { return runtime.GOOS + "/" + runtime.GOARCH }

// binary is the name build.sh gives this machine's binary.
func binary() string { return "yieldshell-" + runtime.GOOS + "-" + runtime.GOARCH }

// build runs build.sh for this machine's target into dir.
func build(dir string) error {
	out, err := exec.Command("sh", filepath.Join(root, "release", "build.sh"), dir, target()).CombinedOutput()
	if err != nil {
		return fmt.Errorf("build.sh: %w\n%s", err, out)
	}
	return nil
}

// hostBuild is the shared build, made once.
func hostBuild(t *testing.T) string {
	t.Helper()
	host.once.Do(func() { host.err = build(host.dir) })
	if host.err != nil {
		t.Fatal(host.err)
	}
	return host.dir
}

// releaseBuilds skips t under -short: it builds the release (twice, for
// TestReproducible), which is half a minute on two busy cores and nothing
// a change to the server's code needs between two edits. The full suite
// (the README's command) runs it; TestNPMPackageJSON checks the packages'
// metadata in -short too.
func releaseBuilds(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the release: runs without -short")
	}
}

// TestReproducible builds one target twice and compares the bytes; the
// checkout's path must not be in them (-trimpath).
func TestReproducible(t *testing.T) {
	releaseBuilds(t)
	first := hostBuild(t)
	second := t.TempDir()
	if err := build(second); err != nil {
		t.Fatal(err)
	}
	name := binary()
	a, err := os.ReadFile(filepath.Join(first, name))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(second, name))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Errorf("two builds of %s differ (%d and %d bytes)", name, len(a), len(b))
	}
	sums, err := os.ReadFile(filepath.Join(first, "SHA256SUMS"))
	if err != nil || !strings.HasSuffix(strings.TrimSpace(string(sums)), "  "+name) {
		t.Errorf("SHA256SUMS: %v %q", err, sums)
	}
	abs, _ := filepath.Abs(root)
	if bytes.Contains(a, []byte(abs)) {
		t.Errorf("%s contains the checkout's path %s: built without -trimpath?", name, abs)
	}
}

// TestNPM packs the npm packages of this machine's build, installs the
// tarballs into an empty directory and speaks MCP to yieldshell through
// npx, as a client configured with "npx -y yieldshell" would.
func TestNPM(t *testing.T) {
	releaseBuilds(t)
	for _, p := range []string{"npm", "npx", "node"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Skip(p + " not installed")
		}
	}
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		t.Skip("no npm package for " + runtime.GOOS)
	}
	dist := hostBuild(t)
	tmp := t.TempDir()
	pkgs, tarballs, project := filepath.Join(tmp, "pkgs"), filepath.Join(tmp, "tarballs"), filepath.Join(tmp, "project")
	for _, d := range []string{tarballs, project} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	run := func(dir, name string, args ...string) {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		// A cache of its own: nothing from this machine's npm state.
		cmd.Env = append(os.Environ(), "npm_config_cache="+filepath.Join(tmp, "cache"), "npm_config_update_notifier=false")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s %v: %v\n%s", name, args, err, out)
		}
	}
	run(root, "sh", "release/npm.sh", dist, pkgs, "0.0.0-test")
	entries, err := os.ReadDir(pkgs)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 2 {
		t.Fatalf("npm.sh made %d packages, want the main one and this platform's", len(entries))
	}
	for _, e := range entries {
		run(filepath.Join(pkgs, e.Name()), "npm", "pack", "--pack-destination", tarballs)
	}
	tgz, _ := filepath.Glob(filepath.Join(tarballs, "*.tgz"))
	// --offline: the other platforms' packages are optional and stay
	// missing, as they would on a user's machine.
	run(project, "npm", append([]string{"install", "--offline", "--no-audit", "--no-fund"}, tgz...)...)

	cmd := exec.Command("npx", "--no", "yieldshell")
	cmd.Dir = project
	cmd.Env = append(os.Environ(), "npm_config_cache="+filepath.Join(tmp, "cache"))
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "npm-test", Version: "0"}, nil).
		Connect(t.Context(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("initialize through npx: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	// serverInfo.version is the version --version prints.
	name := binary()
	out, err := exec.Command(filepath.Join(dist, name), "--version").CombinedOutput()
	if err != nil {
		t.Fatalf("--version: %v %s", err, out)
	}
	if info := cs.InitializeResult().ServerInfo; info.Name != "yieldshell" || !strings.HasPrefix(string(out), "yieldshell "+info.Version+" ") {
		t.Errorf("serverInfo %+v; --version says %q", info, out)
	}
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "exec",
		Arguments: map[string]any{"command": "echo through-npx", "side_effects": []string{"NONE"}}})
	if err != nil || res.IsError {
		t.Fatalf("exec: %v %+v", err, res)
	}
	if out, _ := res.StructuredContent.(map[string]any); out["stdout"] != "through-npx\n" {
		t.Errorf("exec answered %v", res.StructuredContent)
	}
}

// TestNPMPackageJSON: every package npm.sh makes says it is MIT, ships
// the LICENSE, and names its home and repository; the main one also says
// what it is for (keywords) and which Node runs its launcher (engines).
// Stand-ins for the binaries are enough: npm.sh only copies them.
func TestNPMPackageJSON(t *testing.T) {
	dist, out := t.TempDir(), t.TempDir()
	for _, p := range []string{"linux-amd64", "linux-arm64", "darwin-amd64", "darwin-arm64"} {
		if err := os.WriteFile(filepath.Join(dist, "yieldshell-"+p), []byte("stand-in"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if b, err := exec.Command("sh", filepath.Join(root, "release", "npm.sh"), dist, out, "1.2.3").CombinedOutput(); err != nil {
		t.Fatalf("npm.sh: %v\n%s", err, b)
	}
	license, err := os.ReadFile(filepath.Join(root, "LICENSE"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(license, []byte("MIT License\n")) || !bytes.Contains(license, []byte("The yieldshell authors")) {
		t.Errorf("LICENSE is not the MIT license of the yieldshell authors:\n%.200s", license)
	}
	pkgs, _ := filepath.Glob(filepath.Join(out, "*", "package.json"))
	if len(pkgs) != 5 {
		t.Fatalf("npm.sh made %d packages, want the main one and four platforms'", len(pkgs))
	}
	for _, p := range pkgs {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var pkg struct {
			Name, Version, License, Homepage string
			Keywords                         []string
			Engines                          map[string]string
			Repository                       struct{ Type, URL string }
			Bugs                             struct{ URL string }
		}
		if err := json.Unmarshal(b, &pkg); err != nil {
			t.Fatalf("%s: %v\n%s", p, err, b)
		}
		if pkg.License != "MIT" || pkg.Version != "1.2.3" || !strings.HasPrefix(pkg.Homepage, "https://github.com/yieldshell/yieldshell") ||
			pkg.Repository.Type != "git" || !strings.Contains(pkg.Repository.URL, "github.com/yieldshell/yieldshell") || pkg.Bugs.URL == "" {
			t.Errorf("%s: %+v", pkg.Name, pkg)
		}
		if pkg.Name == "yieldshell" && (len(pkg.Keywords) == 0 || pkg.Engines["node"] == "") {
			t.Errorf("%s: keywords %v, engines %v", pkg.Name, pkg.Keywords, pkg.Engines)
		}
		if got, err := os.ReadFile(filepath.Join(filepath.Dir(p), "LICENSE")); err != nil || !bytes.Equal(got, license) {
			t.Errorf("%s: no LICENSE beside package.json (%v)", pkg.Name, err)
		}
	}
}
