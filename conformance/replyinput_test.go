//go:build unix

package conformance

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
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
				writeTree(t, map[string]string{
					filepath.Join(dir, "README"):    queries,
					filepath.Join(dir, "keep.txt"):  "keep\n",
					filepath.Join(build, "out.txt"): "out\n",
				})
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
	// One version after the other: alone, the read was more often caught
	// asleep just after its reply was written, and reported waiting for a
	// line (input_signal tty_read): 6 of 80 runs under two busy loops,
	// against none of 160 side by side, before a reply written but not
	// read yet counted as on its way (Replying).
	for _, v := range protocols {
		t.Run(protoName(v), func(t *testing.T) { testQueryingRead(t, start(t, v)) })
	}
}

func testQueryingRead(t *testing.T, s *server) {
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

// A background job that prints a terminal query while an integrated shell
// idles at its prompt gets no reply: the shell's line editor is what reads
// the terminal then, and a reply written to it would be typed in front of
// the agent's next command. "cd build; rm -f *.txt" then ran as
// "62;22ccd build; rm -f *.txt" and deleted the parent's files.
//
// Spec: issue 38 item 1: "A query printed by any process while an integrated shell is at its prompt ... gets no reply; the agent's next command runs exactly as written".
func TestRepliesToABackgroundJobDoNotReachTheIdleShell(t *testing.T) {
	forEachShell(t, func(t *testing.T, s *server, shell, id string) {
		// bash's line editor in both its modes; zsh and fish have one.
		modes := []string{""}
		if shell == "bash" {
			modes = []string{"emacs", "vi"}
		}
		for _, mode := range modes {
			if mode != "" {
				waiting(t, s.reply(id, "set -o "+mode), "command")
			}
			for _, k := range replyKinds {
				t.Run(mode+k.name, func(t *testing.T) {
					dir := t.TempDir()
					build := filepath.Join(dir, "build")
					fifo := filepath.Join(dir, "go")
					job := "read _ < \"$1\"; printf 'job says %b' \"$2\"; echo \"job done: $3\"\n"
					writeTree(t, map[string]string{
						filepath.Join(dir, "job.sh"):    job,
						filepath.Join(dir, "keep.txt"):  "keep\n",
						filepath.Join(build, "out.txt"): "out\n",
					})
					if err := syscall.Mkfifo(fifo, 0o600); err != nil {
						t.Fatal(err)
					}
					// The job waits on the fifo, so its query comes while the
					// shell sits at its next prompt.
					// The query is passed escaped, so that nothing but the job
					// prints it.
					escaped := strings.NewReplacer("\x1b", `\033`, "\x07", `\007`).Replace(k.query)
					waiting(t, s.reply(id, "cd "+dir+"; sh job.sh go '"+escaped+"' "+mode+k.name+" &"), "command")
					release(t, fifo)
					s.readUntil(id, "job done: "+mode+k.name)
					a := waiting(t, s.reply(id, "cd build; rm -f *.txt"), "command")
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
		}
	})
}

// release writes a line to the fifo at path once a reader has it open.
func release(t *testing.T, path string) {
	t.Helper()
	var f *os.File
	eventually(t, 10*time.Second, "a reader of "+path, func() bool {
		var err error
		f, err = os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0)
		return err == nil
	})
	defer f.Close()
	if _, err := f.Write([]byte("now\n")); err != nil {
		t.Fatal(err)
	}
}

// A query printed by a process that is not the reader gets no reply either:
// here a background job queries while the foreground reads a line in
// canonical mode, as input() or read do, and the line the agent types is
// read exactly as written: no reply is written to a terminal in canonical
// mode, where it would be echoed and glued to the line.
//
// Spec: issue 38 item 1: "A query printed ... by a process that is not the reader gets no reply".
func TestRepliesToABackgroundJobDoNotReachALineReader(t *testing.T) {
	forEachProtocol(t, nil, func(t *testing.T, s *server) {
		for _, k := range replyKinds {
			t.Run(k.name, func(t *testing.T) {
				dir := t.TempDir()
				fifo := filepath.Join(dir, "go")
				job := "read _ < \"$1\"; printf 'job says %b' \"$2\"; echo \"job done: $3\"\n"
				if err := os.WriteFile(filepath.Join(dir, "job.sh"), []byte(job), 0o600); err != nil {
					t.Fatal(err)
				}
				if err := syscall.Mkfifo(fifo, 0o600); err != nil {
					t.Fatal(err)
				}
				escaped := strings.NewReplacer("\x1b", `\033`, "\x07", `\007`).Replace(k.query)
				r := s.exec(`sh job.sh go '`+escaped+`' `+k.name+` & read -r line; echo "got:$line"; wait`,
					map[string]any{"cwd": dir, "yield_ms": 200})
				r.mustStatus(t, "backgrounded")
				id := r.str("process_id")
				release(t, fifo)
				s.readUntil(id, "job done: "+k.name)
				a := s.call("write", map[string]any{"process_id": id, "input": "typed", "newline": true, "yield_ms": longYield})
				if a.str("status") != "completed" || !hasLine(a, "got:typed") {
					t.Errorf("the line read is not the one typed: %s", a.text)
				}
			})
		}
	})
}

// writeTree writes each file of files (path to content), making the
// directories it needs.
func writeTree(t *testing.T, files map[string]string) {
	t.Helper()
	for path, content := range files {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}
