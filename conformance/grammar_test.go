//go:build linux

package conformance

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// strs returns the string list r holds under k.
func (r result) strs(k string) []string {
	var out []string
	l, _ := r.m[k].([]any)
	for _, v := range l {
		out = append(out, fmt.Sprint(v))
	}
	return out
}

// menu checks that r waits at a menu with items (or, for want nil, any)
// and the entry at selected.
func menu(t *testing.T, r result, want []string, selected int) {
	t.Helper()
	waiting(t, r, "choice")
	if want != nil && !slices.Equal(r.strs("items"), want) || !r.has("selected") || int(r.num("selected")) != selected {
		t.Fatalf("want items %q with %d selected: %s", want, selected, r.text)
	}
}

// Real prompts answer with their grammar: choices and default of a
// confirm, the items and the selected entry of a menu, pager and editor.
//
// Spec: issue 32 item 2: "a confirm carries choices and default ...; a menu carries its items and the selected one, so an agent can answer with keys in one write".
func TestGrammarOfRealPrompts(t *testing.T) {
	t.Parallel()
	t.Run("apt-get", func(t *testing.T) {
		need(t, "apt-get")
		forEachProtocol(t, nil, func(t *testing.T, s *server) {
			r := waiting(t, s.exec(aptRemove(t, t.TempDir()), map[string]any{"yield_ms": longYield}), "confirm")
			t.Cleanup(func() { s.stopQuietly(r.str("process_id")) })
			if !slices.Equal(r.strs("choices"), []string{"y", "n"}) || r.str("default") != "y" {
				t.Errorf("apt's [Y/n]: %s", r.text)
			}
		})
	})
	t.Run("git-add-p", func(t *testing.T) {
		need(t, "git")
		forEachProtocol(t, nil, func(t *testing.T, s *server) {
			r := waiting(t, s.exec(gitAddP(t, t.TempDir()), map[string]any{"yield_ms": longYield}), "confirm")
			t.Cleanup(func() { s.stopQuietly(r.str("process_id")) })
			if c := r.strs("choices"); !slices.Contains(c, "y") || !slices.Contains(c, "q") || r.has("default") {
				t.Errorf("git's [y,n,q,a,d,e,?]: %s", r.text)
			}
		})
	})
	t.Run("inquirer-menu", func(t *testing.T) {
		need(t, "python3")
		forEachProtocol(t, nil, func(t *testing.T, s *server) {
			r := s.exec("python3 testdata/prompts/menu.py", map[string]any{"yield_ms": longYield})
			t.Cleanup(func() { s.stopQuietly(r.str("process_id")) })
			menu(t, r, []string{"React", "Vue", "Svelte", "Solid"}, 1)
			// Solid is two entries down: one write picks it.
			a := s.call("write", map[string]any{"process_id": r.str("process_id"), "keys": []string{"Down", "Down", "Enter"}, "yield_ms": longYield})
			if a.str("status") != "completed" || !strings.Contains(a.str("stdout"), "picked Solid") {
				t.Errorf("Down Down Enter: %s", a.text)
			}
		})
	})
	t.Run("whiptail", func(t *testing.T) {
		need(t, "whiptail")
		forEachProtocol(t, nil, func(t *testing.T, s *server) {
			r := s.exec(`whiptail --menu "Pick a database" 15 50 4 postgres PostgreSQL mysql MySQL sqlite SQLite`, map[string]any{"yield_ms": longYield})
			t.Cleanup(func() { s.stopQuietly(r.str("process_id")) })
			menu(t, r, []string{"postgres PostgreSQL", "mysql MySQL", "sqlite SQLite"}, 0)
			a := s.call("write", map[string]any{"process_id": r.str("process_id"), "keys": []string{"Down"}, "yield_ms": longYield})
			menu(t, a, nil, 1)
			a = s.call("write", map[string]any{"process_id": r.str("process_id"), "keys": []string{"Enter"}, "yield_ms": longYield})
			if a.str("status") != "completed" || !strings.Contains(a.str("stdout"), "mysql") {
				t.Errorf("Enter: %s", a.text)
			}
		})
	})
	t.Run("whiptail-yesno", func(t *testing.T) {
		need(t, "whiptail")
		forEachProtocol(t, nil, func(t *testing.T, s *server) {
			r := s.exec(`whiptail --yesno "Overwrite the configuration?" 10 50`, map[string]any{"yield_ms": longYield})
			t.Cleanup(func() { s.stopQuietly(r.str("process_id")) })
			menu(t, r, []string{"Yes", "No"}, 0)
		})
	})
	t.Run("fzf", func(t *testing.T) {
		need(t, "fzf")
		list := writeFile(t, "fruits.txt", "apple\nbanana\ncherry\n")
		forEachProtocol(t, nil, func(t *testing.T, s *server) {
			r := s.exec("fzf < "+list, map[string]any{"yield_ms": longYield})
			t.Cleanup(func() { s.stopQuietly(r.str("process_id")) })
			waiting(t, r, "choice")
			items := r.strs("items")
			if len(items) != 3 || items[int(r.num("selected"))] != "apple" {
				t.Fatalf("fzf starts on its first match: %s", r.text)
			}
			a := s.call("write", map[string]any{"process_id": r.str("process_id"), "keys": []string{"Enter"}, "yield_ms": longYield})
			if a.str("status") != "completed" || !strings.Contains(a.str("stdout"), "apple") {
				t.Errorf("Enter: %s", a.text)
			}
		})
	})
	// Spec: issue 43 item 3: "(1-128, default 1) gives default 1 and a range reported as range: {min, max}"; "(? for help)" is no default.
	t.Run("fdisk-shapes", func(t *testing.T) {
		need(t, "bash")
		script := writeFile(t, "fdisk.sh", "read -p 'Partition number (1-128, default 1): ' n\nread -p 'Command (? for help): ' c\necho done $n $c\n")
		forEachProtocol(t, nil, func(t *testing.T, s *server) {
			r := waiting(t, s.exec("bash "+script, map[string]any{"yield_ms": longYield}), "line")
			t.Cleanup(func() { s.stopQuietly(r.str("process_id")) })
			rng, _ := r.m["range"].(map[string]any)
			if r.str("default") != "1" || rng["min"] != float64(1) || rng["max"] != float64(128) {
				t.Errorf("(1-128, default 1): %s", r.text)
			}
			a := waiting(t, s.reply(r.str("process_id"), "2"), "line")
			if a.has("default") || a.has("range") || !strings.Contains(a.str("prompt"), "(? for help)") {
				t.Errorf("(? for help): %s", a.text)
			}
		})
	})
	t.Run("less-vim", func(t *testing.T) {
		need(t, "less", "vim")
		file := writeFile(t, "long.txt", strings.Repeat("a line of text\n", 200))
		forEachProtocol(t, nil, func(t *testing.T, s *server) {
			r := waiting(t, s.exec("less "+file, map[string]any{"yield_ms": longYield}), "pager")
			s.stopQuietly(r.str("process_id"))
			r = waiting(t, s.exec("vim -u NONE -N "+file, map[string]any{"yield_ms": longYield, "env": map[string]any{"HOME": t.TempDir()}}), "editor")
			s.stopQuietly(r.str("process_id"))
		})
	})
}

// A command that must not prompt is stopped the moment it asks, and the
// answer says what it asked.
//
// Spec: issue 32 item 4: "exec with on_input: \"fail\" stops the command the moment it waits for input and answers with the prompt and its grammar (status says why); \"return\" stays the default."
func TestOnInputFail(t *testing.T) {
	need(t, "apt-get")
	forEachProtocol(t, nil, func(t *testing.T, s *server) {
		start := time.Now()
		r := s.exec(aptRemove(t, t.TempDir()), map[string]any{"yield_ms": longYield, "on_input": "fail"})
		if took := time.Since(start); took > longYield*time.Millisecond/2 {
			t.Errorf("answered after %v", took)
		}
		if r.str("status") != "failed" || r.str("ended_by") != "input" || r.str("yield_reason") != "input_wait" ||
			r.str("input_kind") != "confirm" || r.str("default") != "y" || !strings.Contains(r.str("prompt"), "[Y/n]") ||
			r.isNull("exit_code") || !strings.Contains(r.str("message"), "on_input") {
			t.Fatalf("on_input fail: %s", r.text)
		}
		if pid := int(r.num("pid")); alive(pid) {
			t.Errorf("pid %d still runs", pid)
		}
		rd := s.call("read", map[string]any{"process_id": r.str("process_id")})
		if rd.str("status") != "failed" || rd.str("ended_by") != "input" {
			t.Errorf("read after: %s", rd.text)
		}
		bad := s.exec("true", map[string]any{"on_input": "ask"})
		if !bad.isError || bad.str("status") != "failed_to_start" {
			t.Errorf("on_input ask: %s", bad.text)
		}
	})
}

var portRE = regexp.MustCompile(`port (\d+)`)

// A server that reads its terminal is serving, not waiting: exec answers
// ready with its ports as soon as it is up, wait does not end on it, and
// wait's until and write's reply still work.
//
// Spec: issue 32 item 3: "a process that reads its terminal while it listens on a socket ... is answered ready: true with its ports ..., not waiting_for_input; exec with wait_for and wait with until keep working".
func TestServingIsNotWaiting(t *testing.T) {
	t.Parallel()
	servers := []struct{ name, command, needs string }{
		{"python-http-server", "python3 -u testdata/prompts/serve.py", "python3"},
		{"go-server", helper("serve-stdin"), ""},
	}
	for _, sv := range servers {
		t.Run(sv.name, func(t *testing.T) {
			if sv.needs != "" {
				need(t, sv.needs)
			}
			forEachProtocol(t, nil, func(t *testing.T, s *server) {
				start := time.Now()
				r := s.exec(sv.command, map[string]any{"yield_ms": longYield})
				id := r.str("process_id")
				t.Cleanup(func() { s.stopQuietly(id) })
				m := portRE.FindStringSubmatch(r.str("stdout"))
				if r.str("yield_reason") != "ready" || r.m["ready"] != true || r.m["waiting_for_input"] != false ||
					m == nil || !slices.Contains(r.strs("ports"), m[1]) || time.Since(start) > 10*time.Second {
					t.Fatalf("exec: %s", r.text)
				}
				// wait does not end on a server: only on its deadline.
				w := s.call("wait", map[string]any{"process_id": id, "timeout_ms": 700})
				if w.str("yield_reason") != "deadline" || w.m["ready"] != true {
					t.Errorf("wait: %s", w.text)
				}
				// A write's reply comes as soon as it is served again.
				a := s.call("write", map[string]any{"process_id": id, "input": "hello", "newline": true, "yield_ms": longYield})
				if a.str("yield_reason") != "ready" || !strings.Contains(a.str("stdout"), "got hello") {
					t.Errorf("write: %s", a.text)
				}
				// wait's until is not ended by the server's reading either.
				u := s.call("wait", map[string]any{"process_id": id, "until": "got hel+o", "timeout_ms": 20000, "since_seq": 0})
				if u.str("yield_reason") != "pattern" || u.str("matched") != "got hello" {
					t.Errorf("wait until: %s", u.text)
				}
				// A second server started while the first is probed: its
				// session is newer than the server's copy of the process
				// table.
				r2 := s.exec(sv.command, map[string]any{"yield_ms": longYield})
				t.Cleanup(func() { s.stopQuietly(r2.str("process_id")) })
				if r2.str("yield_reason") != "ready" || len(r2.strs("ports")) == 0 {
					t.Errorf("second server: %s", r2.text)
				}
			})
		})
	}
	t.Run("wait_for", func(t *testing.T) {
		forEachProtocol(t, nil, func(t *testing.T, s *server) {
			r := s.exec(helper("serve-stdin"), map[string]any{"wait_for": `port \d+`})
			t.Cleanup(func() { s.stopQuietly(r.str("process_id")) })
			if r.str("yield_reason") != "pattern" || r.m["verified"] != true {
				t.Errorf("wait_for: %s", r.text)
			}
		})
	})
}

// Vite's dev server, installed from npm into a cache (as the TypeScript
// client is): "press h + enter to show help" is serving, not waiting.
//
// Spec: issue 32 item 3: "Test with a real dev server installed from npm (vite's dev server: press h + enter to show help)".
func TestServingVite(t *testing.T) {
	need(t, "npm", "node")
	dir := npmCached(t, "yieldshell-vite", `{"name":"vite-probe","private":true,"dependencies":{"vite":"5.4.11"}}`)
	if err := os.WriteFile(filepath.Join(dir, "index.html"), []byte("<h1>hi</h1>\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	forEachProtocolInTurn(t, nil, func(t *testing.T, s *server) {
		port := fmt.Sprint(freePort(t))
		// Vite offers its shortcuts (and reads its terminal) only outside
		// CI; CI runs this test with CI=true.
		r := s.exec("node node_modules/vite/bin/vite.js --host 127.0.0.1 --port "+port,
			map[string]any{"yield_ms": longYield, "cwd": dir, "env": map[string]string{"CI": ""}})
		t.Cleanup(func() { s.stopQuietly(r.str("process_id")) })
		if r.str("yield_reason") != "ready" || r.m["ready"] != true || !slices.Contains(r.strs("ports"), port) ||
			!strings.Contains(r.str("stdout"), "press h + enter to show help") {
			t.Fatalf("vite: %s", r.text)
		}
		// wait_for keeps working for it.
		w := s.exec("node node_modules/vite/bin/vite.js --host 127.0.0.1 --port "+fmt.Sprint(freePort(t)),
			map[string]any{"wait_for": "Local:.*http", "cwd": dir})
		t.Cleanup(func() { s.stopQuietly(w.str("process_id")) })
		if w.str("yield_reason") != "pattern" {
			t.Errorf("wait_for: %s", w.text)
		}
	})
}

// npmCached returns a directory holding node_modules for package.json
// pkg, installed there on first use under the user's cache (name/hash);
// the test is skipped when npm cannot install it.
func npmCached(t *testing.T, name, pkg string) string {
	t.Helper()
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, name, hash([]byte(pkg)))
	if _, err := os.Stat(filepath.Join(dir, "node_modules", ".package-lock.json")); err == nil {
		return dir
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		t.Fatal(err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "install-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	if err := os.WriteFile(filepath.Join(tmp, "package.json"), []byte(pkg), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	npm := exec.CommandContext(ctx, "npm", "install", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error",
		"--fetch-retries=1", "--fetch-timeout=20000")
	npm.Dir = tmp
	if out, err := npm.CombinedOutput(); err != nil {
		t.Skipf("cannot install %s (npm install: %v); skipping\n%s", name, err, out)
	}
	if err := os.Rename(tmp, dir); err != nil {
		if _, statErr := os.Stat(dir); statErr != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// freePort returns a TCP port nobody listens on now.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
