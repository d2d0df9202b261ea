//go:build unix

package conformance

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestTypeScriptClient drives the binary with the official TypeScript SDK
// client (testdata/tsclient): tools/list passes its validation, every answer
// matches its output schema (the SDK checks), progress arrives while wait
// blocks, exec/wait/read round-trip, and a log resource is subscribed to
// and announced as it changes (issue 41 item 11). It skips without node and npm, or
// when the pinned packages cannot be installed (no registry): they are
// installed once per package-lock.json into the user's cache directory.
//
// Spec: DESIGN go-sdk facts: "today's clients (TypeScript SDK, Cursor, Claude) use initialize (2025-06-18)".
func TestTypeScriptClient(t *testing.T) {
	start := time.Now()
	out := runTSClient(t, "client.mjs", binPath)
	t.Logf("TypeScript client passed in %v: %s", time.Since(start).Round(time.Millisecond), out)
}

// TestTypeScriptClientRootsHTTP: the TypeScript SDK client over --http, at
// each protocol version it speaks, has its roots asked for and honoured
// (the server used to ask before the client's GET stream was open, fail,
// and never ask again), again after roots/list_changed; a failed and an
// empty answer are refused with words that say which (issue 41 item 1).
func TestTypeScriptClientRootsHTTP(t *testing.T) {
	a, b, _, _ := rootDirs(t)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	h := startHTTP(t, ctx, "YIELDSHELL_ALLOWED_CWDS=roots")
	t.Logf("TypeScript client: %s", runTSClient(t, "roots.mjs", h.url, httpToken, a, b))
}

// runTSClient runs testdata/tsclient/<script> under node with args, beside
// the pinned SDK, and returns what it printed. It skips without node and
// npm, or when the SDK cannot be installed.
func runTSClient(t *testing.T, script string, args ...string) string {
	t.Helper()
	statSources()
	need(t, "npm")
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skip("npm is not installed")
	}
	dir := tsClientDir(t)
	src, err := os.ReadFile(filepath.Join("testdata", "tsclient", script))
	if err != nil {
		t.Fatal(err)
	}
	// The script sits next to node_modules so that its imports resolve.
	scriptPath := filepath.Join(dir, strings.TrimSuffix(script, ".mjs")+"-"+hash(src)+".mjs")
	if err := os.WriteFile(scriptPath, src, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, append([]string{scriptPath}, args...)...)
	cmd.Env = append(os.Environ(), "GORACE=atexit_sleep_ms=0")
	cmd.WaitDelay = 5 * time.Second
	var stdout bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, testWriter{t}
	if err := cmd.Run(); err != nil {
		t.Fatalf("the TypeScript client (%s) failed: %v\n%s", script, err, stdout.String())
	}
	return strings.TrimSpace(stdout.String())
}

// tsClientDir returns a directory holding node_modules for the pinned
// package-lock.json, installing it there on first use.
func tsClientDir(t *testing.T) string {
	t.Helper()
	src := filepath.Join("testdata", "tsclient")
	lock, err := os.ReadFile(filepath.Join(src, "package-lock.json"))
	if err != nil {
		t.Fatal(err)
	}
	pkg, err := os.ReadFile(filepath.Join(src, "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "yieldshell-tsclient", hash(append(pkg, lock...)))
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err == nil {
		return dir
	}
	// Install into a fresh directory and move it into place, so that an
	// interrupted or concurrent install never leaves a half-filled one.
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		t.Fatal(err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "install-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	for name, b := range map[string][]byte{"package.json": pkg, "package-lock.json": lock} {
		if err := os.WriteFile(filepath.Join(tmp, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	npm := exec.CommandContext(ctx, "npm", "ci", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error",
		"--fetch-retries=1", "--fetch-timeout=20000") // an unreachable registry skips soon
	npm.Dir = tmp
	start := time.Now()
	if out, err := npm.CombinedOutput(); err != nil {
		t.Skipf("cannot install the TypeScript SDK (npm ci: %v); skipping\n%s", err, out)
	}
	t.Logf("installed the TypeScript SDK in %v", time.Since(start).Round(time.Millisecond))
	if err := os.Rename(tmp, dir); err != nil {
		// Another run got there first: use its copy.
		if _, statErr := os.Stat(dir); statErr != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func hash(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:6])
}
