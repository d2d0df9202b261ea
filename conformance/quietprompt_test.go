//go:build linux

package conformance

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Programs that wait in a poll of several descriptors (node's, Ruby's and
// prompt_toolkit's event loops), where the kernel cannot say "reading the
// terminal", are seen waiting by the row the cursor is on. Each question
// must be answered as waiting long before the yield below, with what it
// asks: a default in brackets holding digits or dots, a continuation
// prompt followed by the REPL's own indentation (issue 32 cause 1).
const promptYield = 10000

// waitingSoon is waiting, and the call returned well before the yield:
// the answer to a write waits for the program's reply, its prompt and the
// quiet period, never for the yield. (took is zero for the program's
// start, whose time goes to loading the program.)
func waitingSoon(t *testing.T, r result, kind string, took time.Duration) result {
	t.Helper()
	waiting(t, r, kind)
	if took > promptYield*time.Millisecond/2 {
		t.Fatalf("waiting for %s input seen after %v of a %d ms yield: %s", kind, took, promptYield, r.text)
	}
	return r
}

// answer writes a line and returns the answer to it, with promptYield.
func (s *server) answer(id, line string) (result, time.Duration) {
	s.t.Helper()
	return timed(func() result {
		return s.call("write", map[string]any{"process_id": id, "input": line, "newline": true, "yield_ms": promptYield})
	})
}

// timed runs call and how long it took.
func timed(call func() result) (result, time.Duration) {
	t0 := time.Now()
	r := call()
	return r, time.Since(t0)
}

// Spec: issue 32 item 1: "a prompt model that reasons from the terminal (cursor after visible text on its row, only indentation after the prompt ...)".
func TestPromptNpmInit(t *testing.T) {
	need(t, "npm")
	// The answers by question; the defaults npm shows, "" for none. npm
	// versions differ in which questions they ask, not in how.
	answers := map[string]struct{ def, answer string }{
		"package name":   {"", "shape-probe"}, // the directory's name
		"version":        {"1.0.0", "2.3.4"},
		"description":    {"", "a prompt model"},
		"entry point":    {"index.js", "main.js"},
		"test command":   {"", "echo ok"},
		"git repository": {"", ""},
		"keywords":       {"", "terminal"},
		"author":         {"", "Ada"},
		"license":        {"ISC", "MIT"},
		"type":           {"commonjs", "module"},
	}
	forEachProtocol(t, nil, func(t *testing.T, s *server) {
		dir := filepath.Join(t.TempDir(), "probe-dir")
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		r := s.exec("npm init", map[string]any{"yield_ms": promptYield, "cwd": dir, "env": map[string]string{"NO_UPDATE_NOTIFIER": "1"}})
		var took time.Duration
		id := r.str("process_id")
		seen := map[string]bool{}
		for range len(answers) + 1 {
			prompt := strings.TrimSpace(r.str("prompt"))
			if strings.HasPrefix(prompt, "Is this OK?") {
				break
			}
			waitingSoon(t, r, "line", took)
			label, _, _ := strings.Cut(prompt, ":")
			a, ok := answers[label]
			if !ok || seen[label] {
				t.Fatalf("unexpected question %q: %s", prompt, r.text)
			}
			seen[label] = true
			def := a.def
			if label == "package name" {
				def = "probe-dir"
			}
			if r.str("default") != def {
				t.Errorf("%q: default %q, want %q", prompt, r.str("default"), def)
			}
			r, took = s.answer(id, a.answer)
			t.Logf("%q answered; the next question seen after %v (%s)", a.answer, took, r.str("input_signal"))
		}
		waitingSoon(t, r, "confirm", took)
		if r.str("default") != "yes" {
			t.Errorf("Is this OK?: default %q: %s", r.str("default"), r.text)
		}
		end, _ := s.answer(id, "yes")
		if end.str("status") != "completed" || end.num("exit_code") != 0 {
			t.Fatalf("npm init did not end: %s", end.text)
		}
		b, err := os.ReadFile(filepath.Join(dir, "package.json"))
		if err != nil {
			t.Fatal(err)
		}
		var pkg struct {
			Name, Version, Description, Main, Author, License, Type string
			Scripts                                                 map[string]string
			Keywords                                                []string
		}
		if err := json.Unmarshal(b, &pkg); err != nil {
			t.Fatalf("package.json: %v\n%s", err, b)
		}
		want := []struct{ got, want string }{
			{pkg.Name, "shape-probe"}, {pkg.Version, "2.3.4"}, {pkg.Description, "a prompt model"},
			{pkg.Main, "main.js"}, {pkg.Scripts["test"], "echo ok"}, {pkg.Author, "Ada"}, {pkg.License, "MIT"},
			{strings.Join(pkg.Keywords, ","), "terminal"},
		}
		if seen["type"] {
			want = append(want, struct{ got, want string }{pkg.Type, "module"})
		}
		for _, w := range want {
			if w.got != w.want {
				t.Errorf("package.json has %q where %q was typed:\n%s", w.got, w.want, b)
			}
		}
	})
}

// A REPL that indents the next line of a statement leaves the cursor after
// its continuation prompt and the indentation: python 3.13's "...     ",
// IPython's "   ...:     ", irb's "irb(main):002:1*   ".
//
// Spec: issue 32 item 1: "only indentation after the prompt"; item 2: input_kind "continuation".
func TestPromptAutoIndent(t *testing.T) {
	tests := []struct {
		name, command string
		needs         func(t *testing.T)
		primary       string // the primary prompt
		lines         []string
		want          string // in the output once the statement ran
	}{
		{"python3", "python3 -q", needPython313, ">>> ",
			[]string{"def f():", "return 6 * 7", "", "f()"}, "42"},
		{"ipython3", "ipython3 --no-banner --no-confirm-exit --colors=NoColor", func(t *testing.T) { need(t, "ipython3") }, "In [",
			[]string{"def f():", "return 6 * 7", "", "f()"}, "42"},
		{"irb", "irb --nocolorize", func(t *testing.T) { need(t, "irb") }, "irb(main)",
			[]string{"def f", "6 * 7", "end", "f"}, "=> 42"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.needs(t)
			forEachProtocol(t, nil, func(t *testing.T, s *server) {
				r := waiting(t, s.exec(tt.command, map[string]any{"yield_ms": promptYield, "cwd": t.TempDir()}), "line")
				var took time.Duration
				if !strings.HasPrefix(r.str("prompt"), tt.primary) {
					t.Fatalf("prompt: want %q: %s", tt.primary, r.text)
				}
				id := r.str("process_id")
				// The head of the statement and its body are answered at a
				// continuation prompt followed by the indentation.
				for _, line := range tt.lines[:2] {
					r, took = s.answer(id, line)
					waitingSoon(t, r, "continuation", took)
					p := r.str("prompt")
					if strings.TrimRight(p, " ") == p || !strings.HasSuffix(p, "  ") {
						t.Errorf("%q: the prompt %q shows no indentation", line, p)
					}
				}
				for _, line := range tt.lines[2:] {
					r, took = s.answer(id, line)
					waitingSoon(t, r, "line", took)
				}
				if !strings.Contains(r.str("stdout"), tt.want) {
					t.Errorf("want %q: %s", tt.want, r.text)
				}
				t.Logf("%s: %s, last answer after %v", tt.name, r.str("input_signal"), took)
			})
		})
	}
}

// needPython313 skips unless python3 is 3.13 or newer, whose REPL indents
// the next line of a block.
func needPython313(t *testing.T) {
	need(t, "python3")
	if err := exec.Command("python3", "-c", "import sys; sys.exit(sys.version_info < (3, 13))").Run(); err != nil {
		t.Skip("python3 is older than 3.13: its REPL does not indent")
	}
}
