//go:build unix

package conformance

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// A program that asks its terminal where the cursor is gets the real
// position, as from xterm.
//
// Spec: issue 14 item 1: "printf '\033[6n'; IFS='[;' read -rs -d R _ row col; echo "$row;$col" prints the real cursor".
func TestCursorPositionQueryIsAnswered(t *testing.T) {
	need(t, "bash")
	forEachProtocol(t, nil, func(t *testing.T, s *server) {
		cmd := `exec bash -c 'printf "abc\n\nxy"; printf "\033[6n"; IFS="[;" read -rs -d R _ row col; echo; echo "at:$row;$col"'`
		r := s.exec(cmd, map[string]any{"yield_ms": 10000}).mustStatus(t, "completed")
		if out := r.str("stdout"); !strings.Contains(out, "at:3;3\n") {
			t.Errorf("stdout = %q, want the cursor at row 3, column 3 (at:3;3)", out)
		}
	})
}

// vim waits for its start-up queries' replies before it exits; answered,
// :wq ends it at once and the write's answer says so.
//
// Spec: issue 14 item 1: "vim :wq ... answer completed with no wait".
func TestVimWqCompletes(t *testing.T) {
	need(t, "vim")
	for _, c := range []struct{ name, vim string }{
		{"no-config", "vim -u NONE -N"},
		{"default-config", "vim"},
	} {
		t.Run(c.name, func(t *testing.T) {
			forEachProtocol(t, nil, func(t *testing.T, s *server) {
				dir := t.TempDir()
				file := filepath.Join(dir, "notes.txt")
				if err := os.WriteFile(file, []byte("line one\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				r := s.exec(c.vim+" notes.txt", map[string]any{"yield_ms": longYield, "cwd": dir,
					"env": map[string]any{"HOME": dir, "VIMINIT": ""}})
				r.mustStatus(t, "backgrounded")
				id := r.str("process_id")
				w := s.call("write", map[string]any{"process_id": id, "input": ":%s/one/ONE/|wq\r", "yield_ms": longYield})
				if w.str("status") != "completed" || w.str("yield_reason") != "exited" {
					t.Fatalf(":wq answered %s", w.text)
				}
				if b, _ := os.ReadFile(file); string(b) != "line ONE\n" {
					t.Errorf("file = %q, want the edit written", b)
				}
			})
		})
	}
}

// git commit through vim as its editor completes when vim is told :wq.
//
// Spec: issue 14 item 1: "git commit through the default editor answer completed with no wait".
func TestGitCommitThroughVim(t *testing.T) {
	need(t, "git", "vim")
	forEachProtocol(t, nil, func(t *testing.T, s *server) {
		dir := t.TempDir()
		for _, args := range [][]string{
			{"init", "-q"},
			{"config", "user.email", "t@example.com"},
			{"config", "user.name", "T"},
		} {
			if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
				t.Fatalf("git %v: %v\n%s", args, err, out)
			}
		}
		if err := os.WriteFile(filepath.Join(dir, "f.txt"), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		env := map[string]any{"GIT_EDITOR": "vim", "HOME": dir, "VIMINIT": "", "GIT_CONFIG_NOSYSTEM": "1"}
		r := s.exec("git add f.txt && git commit", map[string]any{"yield_ms": longYield, "cwd": dir, "env": env})
		r.mustStatus(t, "backgrounded")
		id := r.str("process_id")
		w := s.call("write", map[string]any{"process_id": id, "input": "ggOmessage from the test\x1b:wq\r", "yield_ms": longYield})
		if w.str("status") != "completed" || w.num("exit_code") != 0 {
			t.Fatalf(":wq answered %s", w.text)
		}
		out, err := exec.Command("git", "-C", dir, "log", "--format=%s").CombinedOutput()
		if err != nil || strings.TrimSpace(string(out)) != "message from the test" {
			t.Errorf("git log = %q, %v; want the commit with the message typed", out, err)
		}
	})
}

// A program that floods queries and never reads its input cannot stall
// the output reader: replies that do not fit are dropped and counted, the
// output after the flood is all in the log, and the answer says what was
// dropped.
//
// Spec: issue 14 item 1: "bounded queue; what is dropped is counted in notes".
func TestQueryFloodDoesNotBlockOutput(t *testing.T) {
	forEachProtocol(t, nil, func(t *testing.T, s *server) {
		const lines = 500
		r := s.exec(helper("query-flood", "100000", fmt.Sprint(lines)),
			map[string]any{"yield_ms": 60000, "max_output_bytes": 1 << 20})
		r.mustStatus(t, "completed")
		out := s.readAll(r.str("process_id"))
		for _, want := range []string{"after the flood 0\n", fmt.Sprintf("after the flood %d\n", lines-1), "done"} {
			if !strings.Contains(out, want) {
				t.Errorf("stdout lacks %q; its tail: %q", want, out[max(0, len(out)-300):])
			}
		}
		dropped := regexp.MustCompile(`^(\d+) replies to terminal queries were dropped`)
		check := func(what string, r result) {
			t.Helper()
			notes, _ := r.m["notes"].([]any)
			for _, n := range notes {
				if s, _ := n.(string); dropped.MatchString(s) {
					return
				}
			}
			t.Errorf("%s answer's notes do not say replies were dropped: %s", what, r.text[:min(len(r.text), 500)])
		}
		check("exec", r)
		check("read", s.call("read", map[string]any{"process_id": r.str("process_id"), "max_output_bytes": 100}))
	})
}

// readAll reads a process's whole log, page by page.
func (s *server) readAll(id string) string {
	s.t.Helper()
	var b strings.Builder
	for seq := 0.0; ; {
		r := s.call("read", map[string]any{"process_id": id, "since_seq": seq})
		b.WriteString(r.str("stdout"))
		if r.num("next_seq") == seq {
			return b.String()
		}
		seq = r.num("next_seq")
	}
}
