//go:build unix

package conformance

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// The yields below are long on purpose: a prompt must be answered long
// before them, and an answer that waited them out fails the test.
const longYield = 20000

// basePrograms are what the whole suite leans on; a test that needs any
// other program is a real-program test, which -short leaves out.
var basePrograms = map[string]bool{"bash": true, "sh": true, "setsid": true, "sha256sum": true}

// need skips the test unless every one of programs is installed, and, with
// -short, when one of them is a real program (not one of basePrograms).
func need(t *testing.T, programs ...string) {
	t.Helper()
	for _, p := range programs {
		if testing.Short() && !basePrograms[p] {
			t.Skipf("a test with %s: real programs run without -short", p)
		}
		if _, err := exec.LookPath(p); err != nil {
			t.Skipf("%s is not installed", p)
		}
	}
}

// waiting fails unless r is a running process waiting for input of kind.
func waiting(t *testing.T, r result, kind string) result {
	t.Helper()
	if r.isError || r.m["waiting_for_input"] != true || r.str("yield_reason") != "input_wait" ||
		r.str("input_kind") != kind || r.str("input_signal") == "" {
		t.Fatalf("want a process waiting for %s input; answer: %s", kind, r.text)
	}
	return r
}

// reply writes a line and returns the answer to it.
func (s *server) reply(id, line string) result {
	s.t.Helper()
	return s.call("write", map[string]any{"process_id": id, "input": line, "newline": true, "yield_ms": longYield})
}

// step is one line typed into an interactive program and text its answer
// must contain.
type step struct{ in, want string }

// session types each step's line and checks the answer, which must end at
// the program's next prompt.
func (s *server) session(t *testing.T, id string, steps []step) {
	t.Helper()
	for _, st := range steps {
		a := s.reply(id, st.in)
		if !strings.Contains(a.str("stdout"), st.want) {
			t.Fatalf("%q answered %s", st.in, a.text)
		}
		waiting(t, a, "line")
	}
}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// Spec: DESIGN: a long one is promoted "the moment the program sits waiting for input"; Contracts: "waiting_for_input: true, input_kind ..., prompt".
func TestPromptPythonREPL(t *testing.T) {
	need(t, "python3")
	forEachProtocol(t, nil, func(t *testing.T, s *server) {
		r := waiting(t, s.exec("python3 -q", map[string]any{"yield_ms": longYield}), "line")
		if r.str("prompt") != ">>> " || r.str("status") != "backgrounded" {
			t.Fatalf("exec python3: %s", r.text)
		}
		id := r.str("process_id")
		a := waiting(t, s.reply(id, "1+1"), "line")
		if a.str("stdout") != "1+1\n2\n>>> " {
			t.Errorf("1+1 answered %q", a.str("stdout"))
		}
		a = waiting(t, s.reply(id, "for i in range(2):"), "continuation")
		if a.str("prompt") != "... " {
			t.Errorf("continuation prompt %q", a.str("prompt"))
		}
		a = waiting(t, s.reply(id, "  print('x', i)"), "continuation")
		a = waiting(t, s.reply(id, ""), "line")
		if !strings.Contains(a.str("stdout"), "x 0\nx 1\n>>> ") {
			t.Errorf("loop answered %q", a.str("stdout"))
		}
		end := s.call("write", map[string]any{"process_id": id, "input": "", "keys": []string{"C-d"}, "yield_ms": longYield})
		if end.str("status") != "completed" || end.str("yield_reason") != "exited" {
			t.Errorf("Ctrl-D: %s", end.text)
		}
	})
}

// Spec: DESIGN Input-wait signals: "the terminal's foreground process blocked reading the terminal (Linux /proc)".
func TestPromptReadP(t *testing.T) {
	need(t, "bash")
	forEachProtocol(t, nil, func(t *testing.T, s *server) {
		r := waiting(t, s.exec(`read -p "Your name? " n; echo "hi $n"; exit 4`, map[string]any{"shell": "bash", "yield_ms": longYield}), "line")
		if r.str("prompt") != "Your name? " || r.str("stdout") != "Your name? " {
			t.Fatalf("exec: %s", r.text)
		}
		a := s.reply(r.str("process_id"), "bob")
		if a.str("status") != "completed" || a.num("exit_code") != 4 || a.str("stdout") != "bob\nhi bob\n" {
			t.Errorf("answer: %s", a.text)
		}
	})
}

// A password typed at a getpass prompt appears in no answer and no log.
//
// Spec: DESIGN Input-wait signals: "echo off meaning a secret"; a secret typed there is redacted like any other.
func TestPromptPassword(t *testing.T) {
	need(t, "python3")
	script := writeFile(t, "login.py", "import getpass\npw = getpass.getpass('Password: ')\nprint('length', len(pw))\n")
	const secret = "hunter2-correct-horse"
	forEachProtocol(t, nil, func(t *testing.T, s *server) {
		r := waiting(t, s.exec("python3 "+script, map[string]any{"yield_ms": longYield}), "password")
		if r.str("prompt") != "Password: " || r.str("input_signal") != "tty_read" {
			t.Fatalf("exec: %s", r.text)
		}
		a := s.reply(r.str("process_id"), secret)
		all := s.call("read", map[string]any{"process_id": r.str("process_id"), "since_seq": 0})
		if !strings.Contains(a.str("stdout"), "length 21") {
			t.Errorf("answer: %s", a.text)
		}
		for _, x := range []result{a, all} {
			if strings.Contains(x.text, secret) {
				t.Errorf("the password leaked: %s", x.text)
			}
		}
	})
}

// Spec: DESIGN Facts: "readline programs in pselect6 (poll_schedule_timeout)" are seen waiting for input.
func TestPromptNodeREPL(t *testing.T) {
	need(t, "node")
	forEachProtocol(t, nil, func(t *testing.T, s *server) {
		r := waiting(t, s.exec("node", map[string]any{"yield_ms": longYield}), "line")
		if r.str("prompt") != "> " {
			t.Fatalf("exec node: %s", r.text)
		}
		a := waiting(t, s.reply(r.str("process_id"), "[1,2,3].map(x => x * 7).join('-')"), "line")
		if !strings.Contains(a.str("stdout"), "'7-14-21'") || a.str("prompt") != "> " {
			t.Errorf("answer: %s", a.text)
		}
	})
}

// A debugging session in pdb: break, continue, print, step, continue.
//
// Spec: DESIGN: "REPLs, password prompts, progress bars and full-screen programs behave as they do for a person".
func TestPromptPdb(t *testing.T) {
	need(t, "python3")
	script := writeFile(t, "prog.py", "def total(xs):\n    s = 0\n    for x in xs:\n        s += x\n    return s\n\nprint('total', total([3, 4, 5]))\n")
	forEachProtocol(t, nil, func(t *testing.T, s *server) {
		r := waiting(t, s.exec("python3 -m pdb "+script, map[string]any{"yield_ms": longYield}), "line")
		if r.str("prompt") != "(Pdb) " {
			t.Fatalf("exec pdb: %s", r.text)
		}
		id := r.str("process_id")
		steps := []step{
			{"break 4", "Breakpoint 1"},
			{"continue", "-> s += x"},
			{"p xs, s", "([3, 4, 5], 0)"},
			{"next", "-> for x in xs:"},
			{"p s", "3"},
			{"clear 1", "Deleted breakpoint 1"},
			{"continue", "total 12"},
		}
		s.session(t, id, steps)
	})
}

// The same with gdb on a small C program.
//
// Spec: DESIGN: "REPLs, password prompts, progress bars and full-screen programs behave as they do for a person".
func TestPromptGdb(t *testing.T) {
	need(t, "gdb", "gcc")
	src := writeFile(t, "prog.c", "#include <stdio.h>\nint main(void) {\n  int x = 6;\n  x = x * 7;\n  printf(\"x=%d\\n\", x);\n  return 0;\n}\n")
	bin := filepath.Join(filepath.Dir(src), "prog")
	if out, err := exec.Command("gcc", "-g", "-O0", "-o", bin, src).CombinedOutput(); err != nil {
		t.Skipf("gcc cannot build here: %v\n%s", err, out)
	}
	forEachProtocol(t, nil, func(t *testing.T, s *server) {
		r := waiting(t, s.exec("gdb -q -nx "+bin, map[string]any{"yield_ms": longYield}), "line")
		if r.str("prompt") != "(gdb) " {
			t.Fatalf("exec gdb: %s", r.text)
		}
		id := r.str("process_id")
		steps := []step{
			{"break 4", "Breakpoint 1"},
			{"run", "x = x * 7;"},
			{"print x", "= 6"},
			{"next", "printf"},
			{"print x", "= 42"},
			{"continue", "x=42"},
		}
		s.session(t, id, steps)
		end := s.reply(id, "quit")
		if end.str("status") != "completed" {
			t.Errorf("quit: %s", end.text)
		}
	})
}

// An interactive bash is a persistent session: each command answers when
// it finishes, with its exit code, and cwd and variables carry over.
//
// Spec: DESIGN Input-wait signals: "Shells we start interactively get OSC 133 integration injected, so a command typed into them returns when it finishes, with its exit code."
func TestPromptBashSession(t *testing.T) {
	need(t, "bash")
	forEachProtocol(t, nil, func(t *testing.T, s *server) {
		r := waiting(t, s.exec("bash", map[string]any{"yield_ms": longYield}), "command")
		if r.str("input_signal") != "prompt_mark" {
			t.Fatalf("exec bash: %s", r.text)
		}
		id := r.str("process_id")
		dir := t.TempDir()
		a := waiting(t, s.reply(id, "cd "+dir+" && GREETING=hello; false"), "command")
		if a.num("command_exit_code") != 1 || !a.has("command_exit_code") {
			t.Errorf("false: %s", a.text)
		}
		a = waiting(t, s.reply(id, `sleep 0.3; echo "$GREETING from $(pwd)"`), "command")
		if a.num("command_exit_code") != 0 || !a.has("command_exit_code") || !strings.Contains(a.str("stdout"), "hello from "+dir) {
			t.Errorf("echo: %s", a.text)
		}
		if strings.Contains(a.text, "133;") {
			t.Errorf("a shell-integration mark reached the output: %s", a.text)
		}
		// A program run in the shell that asks a question of its own.
		a = waiting(t, s.reply(id, `read -p "Sure? [y/N] " ok; [ "$ok" = y ]`), "confirm")
		a = waiting(t, s.reply(id, "y"), "command")
		if a.num("command_exit_code") != 0 || !a.has("command_exit_code") {
			t.Errorf("read in the shell: %s", a.text)
		}
		end := s.reply(id, "exit 3")
		if end.str("status") != "completed" || end.num("exit_code") != 3 {
			t.Errorf("exit: %s", end.text)
		}
	})
}

// cat waits for input in both modes; in pipe mode it is seen reading its
// stdin pipe, and Ctrl-D (the key) closes that pipe.
//
// Spec: DESIGN PTY mode: in pipe mode "input-wait is still detected".
func TestPromptCat(t *testing.T) {
	forEachProtocol(t, nil, func(t *testing.T, s *server) {
		r := waiting(t, s.exec("cat", map[string]any{"yield_ms": longYield}), "line")
		if r.str("input_signal") != "tty_read" {
			t.Errorf("tty: %s", r.text)
		}
		p := waiting(t, s.exec("cat", map[string]any{"yield_ms": longYield, "tty": false}), "line")
		if p.str("input_signal") != "stdin_read" {
			t.Errorf("pipes: %s", p.text)
		}
		a := waiting(t, s.reply(p.str("process_id"), "abc"), "line")
		if a.str("stdout") != "abc\n" {
			t.Errorf("echoed %q", a.str("stdout"))
		}
		end := s.call("write", map[string]any{"process_id": p.str("process_id"), "input": "", "keys": []string{"C-d"}, "yield_ms": longYield})
		if end.str("status") != "completed" || end.num("exit_code") != 0 {
			t.Errorf("Ctrl-D in pipe mode: %s", end.text)
		}
		intr := s.call("write", map[string]any{"process_id": r.str("process_id"), "input": "", "keys": []string{"C-c"}, "yield_ms": longYield})
		if intr.str("status") != "completed" || intr.str("signal") != "SIGINT" {
			t.Errorf("Ctrl-C in PTY mode: %s", intr.text)
		}
	})
}

// Programs that pause without reading their input are never reported as
// waiting, even when their last line looks like a prompt: build tools
// printing partial lines, sleeps mid-line, test collectors, and a program
// that reads from a pipe rather than its terminal.
//
// Spec: DESIGN Input-wait signals: "Heuristics never fire on a line that is still being written."
func TestNoFalseInputWait(t *testing.T) {
	corpus := []string{
		`printf 'Compiling foo: '; sleep 0.4; echo done`,
		`printf 'collecting ... '; sleep 0.4; echo 'collected 3 items'`,
		`printf 'Downloading [=====>    ] 45%%'; sleep 0.4; echo`,
		`printf 'Password: '; sleep 0.4; echo not really`,
		`printf '$ '; sleep 0.4; echo`,
		`printf 'Continue? [y/N] '; sleep 0.4; echo`,
		`printf '>>> '; sleep 0.3; printf 'still going: '; sleep 0.3; echo end`,
		`sleep 0.4 | cat`,
		`i=0; while [ $i -lt 40 ]; do printf '%d: ' $i; i=$((i+1)); done; sleep 0.3; echo`,
	}
	forEachProtocol(t, nil, func(t *testing.T, s *server) {
		var wg sync.WaitGroup
		for _, tty := range []bool{true, false} {
			for _, c := range corpus {
				wg.Go(func() {
					r := s.exec(c, map[string]any{"yield_ms": longYield, "tty": tty})
					if r.str("status") != "completed" || r.str("yield_reason") != "exited" {
						t.Errorf("tty=%v %q: a pause was taken for a prompt: %s", tty, c, r.text)
					}
				})
			}
		}
		wg.Wait()
	})
}

// A program that ignores its terminal is running, not waiting.
//
// Spec: DESIGN Input-wait signals: only a program reading its terminal (or a prompt mark) waits for input.
func TestIgnoresTerminalIsNotWaiting(t *testing.T) {
	forEachProtocol(t, nil, func(t *testing.T, s *server) {
		r := s.exec("sleep 30", map[string]any{"yield_ms": 600}).mustStatus(t, "backgrounded")
		if r.str("yield_reason") != "yield_elapsed" || r.m["waiting_for_input"] != false {
			t.Errorf("exec: %s", r.text)
		}
		w := s.call("wait", map[string]any{"process_id": r.str("process_id"), "timeout_ms": 400})
		if w.str("yield_reason") != "deadline" || w.m["waiting_for_input"] != false {
			t.Errorf("wait: %s", w.text)
		}
	})
}

// wait answers at once for a process that waits for input; read and ps
// show the state.
//
// Spec: DESIGN: exec, wait and write "return on exit ..., on input-wait, on a requested pattern, on the deadline".
func TestWaitReturnsAtInputWait(t *testing.T) {
	forEachProtocol(t, nil, func(t *testing.T, s *server) {
		r := s.exec(`sleep 0.2; printf 'Name: '; read n; echo "hi $n"`, map[string]any{"yield_ms": 0})
		id := r.str("process_id")
		w := waiting(t, s.call("wait", map[string]any{"process_id": id, "timeout_ms": 50000}), "line")
		if w.str("prompt") != "Name: " {
			t.Errorf("wait: %s", w.text)
		}
		rd := s.call("read", map[string]any{"process_id": id})
		if rd.m["waiting_for_input"] != true || rd.str("prompt") != "Name: " {
			t.Errorf("read: %s", rd.text)
		}
		// ps tells once the output has been quiet for the quiet period.
		eventually(t, 10*time.Second, "ps shows the process waiting", func() bool {
			procs, _ := s.call("ps", map[string]any{}).m["processes"].([]any)
			return len(procs) > 0 && procs[0].(map[string]any)["waiting_for_input"] == true
		})
	})
}
