//go:build unix

package conformance

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// replyKinds are the queries the terminal answers, one of each kind.
var replyKinds = []struct{ name, query string }{
	{"DECRQM", "\x1b[?1$p"},
	{"CPR", "\x1b[6n"},
	{"DA1", "\x1b[c"},
	{"DA2", "\x1b[>c"},
	{"OSC11", "\x1b]11;?\x07"},
	{"DSR", "\x1b[5n"},
	{"DECXCPR", "\x1b[?6n"},
	{"XTVERSION", "\x1b[>q"},
}

// A file full of terminal queries, printed in an integrated shell, leaves
// nothing in the shell's input: the replies go to no one (cat never reads
// them), so the agent's next command runs exactly as written. With the
// replies glued to its front, "cd build; rm -f *.txt" would skip the cd and
// delete the parent directory's files.
//
// Spec: issue 30 item 1: "after printing a file full of queries, the agent's next command runs exactly as written; the cd build; rm -f *.txt case deletes nothing outside build".
func TestRepliesToPrintedQueriesDoNotReachTheShell(t *testing.T) {
	forEachShell(t, func(t *testing.T, s *server, shell, id string) {
		for _, k := range replyKinds {
			t.Run(k.name, func(t *testing.T) {
				dir := t.TempDir()
				build := filepath.Join(dir, "build")
				queries := "a README with queries\n" + strings.Repeat(k.query+"text ", 4) + "\nthe end\n"
				for path, content := range map[string]string{
					filepath.Join(dir, "README"):    queries,
					filepath.Join(dir, "keep.txt"):  "keep\n",
					filepath.Join(build, "out.txt"): "out\n",
				} {
					if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
						t.Fatal(err)
					}
				}
				waiting(t, s.reply(id, "cd "+dir+"; cat README"), "command")
				a := waiting(t, s.reply(id, "cd build; rm -f *.txt"), "command")
				if a.num("command_exit_code") != 0 || !a.has("command_exit_code") {
					t.Errorf("cd build; rm -f *.txt: %s", a.text)
				}
				if _, err := os.Stat(filepath.Join(dir, "keep.txt")); err != nil {
					t.Errorf("a file outside build was deleted (%v): the command ran as something else: %s", err, a.text)
				}
				if _, err := os.Stat(filepath.Join(build, "out.txt")); err == nil {
					t.Errorf("build/out.txt is still there: the command ran as something else: %s", a.text)
				}
				a = waiting(t, s.reply(id, "echo exactly-as-written"), "command")
				if !hasLine(a, "exactly-as-written") || a.num("command_exit_code") != 0 {
					t.Errorf("echo: %s", a.text)
				}
			})
		}
	})
}

// A program that queries its terminal and reads the reply still gets it at
// once inside an integrated shell: bash's read builtin asking for the
// cursor position.
//
// Spec: issue 30 item 1: "Programs that query and read their replies (vim, a CPR read in bash) still get them at once".
func TestRepliesReachAQueryingReadInTheShell(t *testing.T) {
	need(t, "bash")
	forEachProtocol(t, nil, func(t *testing.T, s *server) {
		r := waiting(t, s.exec("bash", map[string]any{"yield_ms": longYield, "env": map[string]string{"HOME": t.TempDir()}}), "command")
		id := r.str("process_id")
		for i := range 5 {
			a := waiting(t, s.reply(id, `IFS=';' read -t 5 -sdR -p $'\e[6n' row col && echo "cpr=${row#*[};$col"`), "command")
			if !regexp.MustCompile(`(?m)^cpr=\d+;\d+$`).MatchString(a.str("stdout")) || a.num("command_exit_code") != 0 {
				t.Fatalf("read %d of the cursor position: %s", i, a.text)
			}
		}
		a := waiting(t, s.reply(id, "echo exactly-as-written"), "command")
		if !hasLine(a, "exactly-as-written") {
			t.Errorf("echo after the reads: %s", a.text)
		}
	})
}

// vim started from an integrated shell gets its start-up replies, edits,
// and the shell's next command runs as written.
//
// Spec: issue 30 item 1: "Programs that query and read their replies (vim, a CPR read in bash) still get them at once".
func TestRepliesReachVimInTheShell(t *testing.T) {
	need(t, "vim")
	forEachShell(t, func(t *testing.T, s *server, shell, id string) {
		dir := t.TempDir()
		file := filepath.Join(dir, "notes.txt")
		if err := os.WriteFile(file, []byte("line one\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		w := s.call("write", map[string]any{"process_id": id, "input": "cd " + dir + "; vim -u NONE -N notes.txt", "newline": true, "yield_ms": longYield})
		if w.isError || w.m["waiting_for_input"] != true {
			t.Fatalf("vim: %s", w.text)
		}
		a := waiting(t, s.call("write", map[string]any{"process_id": id, "input": ":%s/one/ONE/|wq\r", "yield_ms": longYield}), "command")
		if a.num("command_exit_code") != 0 {
			t.Errorf(":wq: %s", a.text)
		}
		if b, _ := os.ReadFile(file); string(b) != "line ONE\n" {
			t.Errorf("file = %q, want the edit written", b)
		}
		a = waiting(t, s.reply(id, "echo exactly-as-written"), "command")
		if !hasLine(a, "exactly-as-written") {
			t.Errorf("echo after vim: %s", a.text)
		}
	})
}
