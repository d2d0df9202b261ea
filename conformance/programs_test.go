//go:build linux

package conformance

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The real programs issue 15 was found with that no other test drives:
// each is started, must be reported waiting for the right kind of input
// long before its yield, and is driven to its end, one turn at a time,
// each turn answered at the program's next wait. (python, pdb, gdb, node,
// getpass, bash, zsh, fish, vim and git commit have tests of their own;
// programs2_test.go drives a second set, issue 32's.) Each turn's answer
// is timed (proglatency_test.go).

// turn is one thing typed and what the answer to it must show.
type turn struct {
	input  string   // typed, then Enter unless bare
	bare   bool     // no Enter: a key for a full-screen program
	keys   []string // named keys, after the input
	secret bool     // held until the program waits for a password
	want   string   // in the answer's output
	kind   string   // the kind of input waited for next; "" for the program's end
}

type program struct {
	name    string
	needs   []string
	command func(t *testing.T, dir string) string
	kind    string // what the first answer waits for
	prompt  string // in the first answer's prompt (PTY mode)
	turns   []turn
	pipes   bool                           // also in pipe mode, where it reads its stdin
	check   func(t *testing.T, dir string) // after the end, in PTY mode
	// notWaiting marks a false friend: it shows a prompt but waits on a
	// timer, and must end without being reported waiting, with want in
	// its output.
	notWaiting bool
	// textOnly: the kernel cannot see through it (ssh polls its terminal
	// and the connection alike), so a waiting answer is allowed if it says
	// it rests on the prompt's text alone.
	textOnly bool
	want     string
	log      string // in the whole log at the end
	// signal, when set, is the input_signal every waiting answer carries
	// (relay_read for a program inside a relay).
	signal string
	// repliesTaken: the replies to the program's start-up queries reach
	// it (tmux's server polls the terminal its client handed over), so
	// the first answer drops none and does not wait for them.
	repliesTaken bool
}

const secretWord = "s3cret-Passphrase-7"

func drivenPrograms() []program {
	return []program{
		{name: "sqlite3", needs: []string{"sqlite3"}, pipes: true,
			command: func(*testing.T, string) string { return "sqlite3 :memory:" },
			kind:    "line", prompt: "sqlite> ",
			turns: []turn{
				{input: "create table t(x); insert into t values (6), (7);", kind: "line"},
				{input: "select x * 7 from t where x = 6;", want: "42", kind: "line"},
				{input: ".quit"},
			}},
		{name: "bc", needs: []string{"bc"}, pipes: true,
			command: func(*testing.T, string) string { return "bc -q" },
			kind:    "line",
			turns: []turn{
				{input: "scale=2; 22/7", want: "3.14", kind: "line"},
				{input: "quit"},
			}},
		{name: "ssh-keygen", needs: []string{"ssh-keygen"},
			command: func(_ *testing.T, dir string) string {
				return "ssh-keygen -q -t ed25519 -C test -f " + filepath.Join(dir, "key")
			},
			kind: "password", prompt: "Enter passphrase",
			turns: []turn{
				{input: secretWord, secret: true, want: "Enter same passphrase again", kind: "password"},
				{input: secretWord, secret: true},
			},
			check: func(t *testing.T, dir string) {
				if _, err := os.Stat(filepath.Join(dir, "key.pub")); err != nil {
					t.Errorf("no key was made: %v", err)
				}
			}},
		{name: "read-s", needs: []string{"bash"},
			command: func(*testing.T, string) string {
				return `bash -c 'read -rs -p "Token: " tok; echo; echo "${#tok} characters"'`
			},
			kind: "password", prompt: "Token: ",
			turns: []turn{{input: secretWord, secret: true, want: "19 characters"}}},
		{name: "yes-no", needs: []string{"bash"}, pipes: true,
			command: func(*testing.T, string) string {
				return `bash -c 'printf "Overwrite config? [y/N] "; read -r a; [ "$a" = y ] && echo overwritten'`
			},
			kind: "confirm", prompt: "[y/N] ",
			turns: []turn{{input: "y", want: "overwritten"}}},
		{name: "rm-i", needs: []string{"rm"}, pipes: true,
			command: func(t *testing.T, dir string) string {
				f := filepath.Join(dir, "victim")
				if err := os.WriteFile(f, []byte("x"), 0o644); err != nil {
					t.Fatal(err)
				}
				return "rm -i " + f
			},
			kind: "line", prompt: "remove regular file",
			turns: []turn{{input: "y"}},
			check: func(t *testing.T, dir string) {
				if _, err := os.Stat(filepath.Join(dir, "victim")); !os.IsNotExist(err) {
					t.Errorf("rm -i answered y left the file: %v", err)
				}
			}},
		{name: "apt-get-remove", needs: []string{"apt-get"}, command: aptRemove,
			kind: "confirm", prompt: "Do you want to continue? [Y/n] ",
			turns: []turn{{input: "n", want: "Abort"}}},
		{name: "git-add-p", needs: []string{"git"}, command: gitAddP,
			kind: "confirm", prompt: "Stage this hunk",
			turns: []turn{{input: "y"}},
			check: func(t *testing.T, dir string) {
				out, err := exec.Command("git", "-C", dir, "diff", "--cached", "--stat").Output()
				if err != nil || !strings.Contains(string(out), "notes.txt") {
					t.Errorf("git add -p answered y staged nothing: %v %s", err, out)
				}
			}},
		{name: "less", needs: []string{"less"},
			command: func(t *testing.T, dir string) string {
				return "less " + writeFile(t, "long.txt", strings.Repeat("a line of text\n", 200))
			},
			kind:  "pager",
			turns: []turn{{keys: []string{"Space"}, kind: "pager"}, {input: "q", bare: true}}},
		{name: "top", needs: []string{"top"},
			command: func(*testing.T, string) string { return "top" },
			kind:    "line",
			turns:   []turn{{input: "q", bare: true}}},
		{name: "htop", needs: []string{"htop"},
			command: func(*testing.T, string) string { return "htop" },
			kind:    "line",
			turns:   []turn{{input: "q", bare: true}}},
	}
}

// aptRemove asks apt-get to remove a package that exists only in a status
// file of the test's own, with apt's state, lists and sources redirected
// into dir and dpkg replaced by false: whatever is answered, nothing on
// the machine changes.
func aptRemove(t *testing.T, dir string) string {
	status := filepath.Join(dir, "status")
	pkg := "Package: yieldshell-fake\nStatus: install ok installed\nPriority: optional\nSection: misc\n" +
		"Installed-Size: 1\nMaintainer: Nobody <nobody@example.com>\nArchitecture: all\nVersion: 1.0\n" +
		"Description: a package only this test's status file has\n"
	if err := os.WriteFile(status, []byte(pkg), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"lists/partial", "cache/archives/partial", "parts"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	sources := filepath.Join(dir, "sources.list")
	if err := os.WriteFile(sources, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	opts := []string{"Debug::NoLocking=1", "Dir::Bin::dpkg=/bin/false", "Dir::State::status=" + status,
		"Dir::State::lists=" + dir + "/lists", "Dir::State::extended_states=" + dir + "/ext",
		"Dir::Cache=" + dir + "/cache", "Dir::Etc::SourceList=" + sources, "Dir::Etc::SourceParts=" + dir + "/parts"}
	return "apt-get -o " + strings.Join(opts, " -o ") + " remove yieldshell-fake"
}

// gitAddP makes a repository with one committed file and a change to it.
func gitAddP(t *testing.T, dir string) string {
	git := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	f := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(f, []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git("add", "notes.txt")
	git("commit", "-q", "-m", "one")
	if err := os.WriteFile(f, []byte("one\ntwo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return "git -C " + dir + " -c core.pager=cat add -p"
}

// Spec: issue 15: "Tests drive every program above that is installed (skip the rest by name), in both modes where that applies, at both protocol versions."
func TestRealProgramsWaitAndAreDriven(t *testing.T) {
	runPrograms(t, drivenPrograms())
}

// runPrograms drives each program at each protocol, in parallel, and
// logs what passed and how fast prompts were answered.
func runPrograms(t *testing.T, programs []program) {
	if testing.Short() {
		t.Skip("real programs run without -short")
	}
	l := newLedger(t)
	for _, p := range programs {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			forEachProtocol(t, nil, func(t *testing.T, s *server) {
				l.result(t, p.name)
				need(t, p.needs...)
				if p.notWaiting {
					timer(t, s, p)
					return
				}
				modes := []bool{true}
				if p.pipes {
					modes = append(modes, false)
				}
				for _, tty := range modes {
					dir := t.TempDir()
					drive(t, s, p, dir, tty, l)
					if tty && p.check != nil {
						p.check(t, dir)
					}
				}
			})
		})
	}
}

// shows reports whether an answer shows s: in its output, or, for a
// full-screen program (a multiplexer) whose output is omitted, on its
// screen.
func shows(a result, s string) bool {
	if strings.Contains(a.str("stdout"), s) {
		return true
	}
	scr, _ := a.m["screen"].(map[string]any)
	lines, _ := scr["lines"].([]any)
	for _, l := range lines {
		if strings.Contains(fmt.Sprint(l), s) {
			return true
		}
	}
	return false
}

// showsPrompt reports whether an answer's prompt is want: its prompt
// field, or the cursor's row of its screen (which keeps no trailing
// blank).
func showsPrompt(a result, want string) bool {
	if strings.Contains(a.str("prompt"), want) {
		return true
	}
	scr, _ := a.m["screen"].(map[string]any)
	lines, _ := scr["lines"].([]any)
	row, ok := scr["cursor_row"].(float64)
	return ok && int(row) < len(lines) && strings.Contains(fmt.Sprint(lines[int(row)]), strings.TrimSpace(want))
}

// drive starts p and takes it through its turns.
func drive(t *testing.T, s *server, p program, dir string, tty bool, l *ledger) {
	t.Helper()
	r := waiting(t, s.exec(p.command(t, dir), map[string]any{"yield_ms": longYield, "tty": tty, "cwd": dir}), p.kind)
	id := r.str("process_id")
	seq := int64(r.num("next_seq"))
	mode := map[bool]string{true: "pty", false: "pipe"}[tty]
	t.Cleanup(func() { s.stopQuietly(id) })
	switch {
	case !tty && r.str("input_signal") != "stdin_read":
		t.Errorf("pipe mode: %s", r.text)
	case tty && !showsPrompt(r, p.prompt):
		t.Errorf("prompt: want %q in %s", p.prompt, r.text)
	case p.signal != "" && r.str("input_signal") != p.signal:
		t.Errorf("input_signal: want %s in %s", p.signal, r.text)
	case p.repliesTaken && strings.Contains(r.text, "were dropped"):
		t.Errorf("replies to the start-up queries were dropped: %s", r.text)
	}
	for _, tn := range p.turns {
		a, lat := s.timedWrite(id, seq, map[string]any{"process_id": id, "input": tn.input, "keys": tn.keys,
			"newline": !tn.bare && tn.keys == nil, "wait_for_password": tn.secret, "yield_ms": longYield})
		seq = int64(a.num("next_seq"))
		if a.m["waiting_for_input"] == true {
			l.add(ledgerRow{Program: p.name, Protocol: protoOf(t), Mode: mode, Signal: a.str("input_signal"),
				Kind: a.str("input_kind"), AfterBytes: ms(lat.upper), AfterMin: ms(lat.lower), RoundTrip: ms(lat.roundTrip)})
		}
		typed := tn.input + strings.Join(tn.keys, " ")
		if !shows(a, tn.want) {
			t.Fatalf("tty=%v: %q answered without %q: %s", tty, typed, tn.want, a.text)
		}
		if tn.kind != "" {
			waiting(t, a, tn.kind)
			if p.signal != "" && a.str("input_signal") != p.signal {
				t.Errorf("%q: input_signal: want %s in %s", typed, p.signal, a.text)
			}
		} else if a.str("status") != "completed" {
			t.Fatalf("tty=%v: %q did not end the program: %s", tty, typed, a.text)
		}
	}
	all := s.call("read", map[string]any{"process_id": id, "since_seq": 0})
	if !strings.Contains(all.str("stdout"), p.log) {
		t.Errorf("tty=%v: want %q in the log: %s", tty, p.log, all.text)
	}
	if strings.Contains(all.text, secretWord) {
		t.Errorf("the secret reached the log: %s", all.text)
	}
}
