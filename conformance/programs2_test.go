//go:build linux

package conformance

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/yieldshell/yieldshell/internal/gpgtest"
)

// A second set of real programs (issue 32), none of which another test
// drives: line editors that query the cursor, debuggers, a database shell
// behind a password, questionnaires, curses dialogs, pickers, a passphrase
// dialog drawn by gpg-agent's pinentry, and false friends that show a
// prompt but wait on a timer.

func secondPrograms() []program {
	return []program{
		// Line editors that ask the terminal where the cursor is.
		{name: "ipython3", needs: []string{"ipython3"},
			command: func(*testing.T, string) string {
				return "ipython3 --no-banner --colors=NoColor --no-confirm-exit --HistoryManager.enabled=False"
			},
			kind: "line", prompt: "In [1]: ",
			turns: []turn{
				{input: "x = 6", kind: "line"},
				{input: "x * 7", want: "42", kind: "line"},
				{input: "exit"},
			}},
		{name: "irb", needs: []string{"irb"},
			command: func(*testing.T, string) string { return "irb --nocolorize --noautocomplete" },
			kind:    "line", prompt: "irb(main):001:0> ",
			turns: []turn{
				{input: "x = 6", kind: "line"},
				{input: "x * 7", want: "=> 42", kind: "line"},
				{input: "exit"},
			}},
		{name: "lua", needs: []string{"lua5.4"},
			command: func(*testing.T, string) string { return "lua5.4" },
			kind:    "line", prompt: "> ",
			turns: []turn{
				{input: "x = 6", kind: "line"},
				{input: "print(x * 7)", want: "42", kind: "line"},
				{input: "os.exit()"},
			}},
		{name: "guile", needs: []string{"guile"},
			command: func(*testing.T, string) string { return "guile -q" },
			kind:    "line", prompt: "scheme@(guile-user)> ",
			turns: []turn{
				{input: "(define x 6)", kind: "line"},
				{input: "(* x 7)", want: "= 42", kind: "line"},
				{input: ",q"},
			}},
		{name: "tclsh", needs: []string{"tclsh"},
			command: func(*testing.T, string) string { return "tclsh" },
			kind:    "line", prompt: "% ",
			turns: []turn{
				{input: "set x 6", kind: "line"},
				{input: "expr {$x * 7}", want: "42", kind: "line"},
				{input: "exit"},
			}},
		{name: "ed", needs: []string{"ed"}, pipes: true,
			command: func(*testing.T, string) string { return "ed -p 'ed> ' notes.txt" },
			kind:    "line", prompt: "ed> ",
			turns: []turn{
				{input: "a", kind: "line"},
				{input: "forty-two", kind: "line"},
				{input: ".", kind: "line"},
				{input: "w", want: "10", kind: "line"},
				{input: "q"},
			},
			check: func(t *testing.T, dir string) {
				if b, err := os.ReadFile(filepath.Join(dir, "notes.txt")); err != nil || string(b) != "forty-two\n" {
					t.Errorf("ed wrote %q, %v", b, err)
				}
			}},
		{name: "rlwrap", needs: []string{"rlwrap", "bc"},
			command: func(*testing.T, string) string { return "rlwrap -a -S 'calc> ' bc -q" },
			kind:    "line", prompt: "calc> ",
			turns: []turn{
				{input: "6 * 7", want: "42", kind: "line"},
				{input: "quit"},
			}},
		{name: "units", needs: []string{"units"},
			command: func(*testing.T, string) string { return "units" },
			kind:    "line", prompt: "You have: ",
			turns: []turn{
				{input: "1 mile", kind: "line"},
				{input: "km", want: "1.609344", kind: "line"},
				{keys: []string{"C-d"}},
			}},

		// Debuggers.
		{name: "perl-d", needs: []string{"perl"},
			command: func(t *testing.T, dir string) string {
				return "perl -d " + writeFile(t, "calc.pl", "my $x = 6;\nmy $y = $x * 7;\nprint \"y=$y\\n\";\n")
			},
			kind: "line", prompt: "DB<1> ",
			turns: []turn{
				{input: "n", want: "$x * 7", kind: "line"},
				{input: "c", want: "y=42", kind: "line"},
				{input: "q"},
			}},
		{name: "node-inspect", needs: []string{"node"},
			command: func(t *testing.T, dir string) string {
				return "node inspect --port=0 " + writeFile(t, "calc.js", "let x = 6;\nlet y = x * 7;\nconsole.log('y=' + y);\n")
			},
			kind: "line", prompt: "debug> ",
			turns: []turn{
				{input: "n", kind: "line"},
				{input: "cont", kind: "line"},
				{input: ".exit"},
			},
			log: "y=42"},

		// A database shell behind a password.
		{name: "psql", needs: []string{"psql"}, command: postgres,
			kind: "password", prompt: "Password for user ada",
			turns: []turn{
				{input: secretWord, secret: true, kind: "line"},
				{input: "select 6 * 7 as answer;", want: "42", kind: "line"},
				{input: `\q`},
			}},

		// Questionnaires.
		{name: "openssl-req", needs: []string{"openssl"}, command: opensslReq,
			kind: "password", prompt: "Enter PEM pass phrase:",
			turns: []turn{
				{input: secretWord, secret: true, want: "Verifying", kind: "password"},
				{input: secretWord, secret: true, want: "Country Name", kind: "line"},
				{input: "NL", want: "State or Province", kind: "line"},
				{input: "", kind: "line"},
				{input: "", kind: "line"},
				{input: "Example", want: "Organizational Unit", kind: "line"},
				{input: "", want: "Common Name", kind: "line"},
				{input: "ada.example.com", want: "Email Address", kind: "line"},
				{input: "", want: "challenge password", kind: "line"},
				{input: "", want: "optional company name", kind: "line"},
				{input: ""},
			},
			check: func(t *testing.T, dir string) {
				out, err := exec.Command("openssl", "req", "-in", filepath.Join(dir, "req.csr"), "-noout", "-subject").CombinedOutput()
				if err != nil || !strings.Contains(string(out), "CN = ada.example.com") {
					t.Errorf("openssl req made no request for ada: %v %s", err, out)
				}
			}},
		{name: "bash-select", needs: []string{"bash"}, pipes: true,
			command: func(*testing.T, string) string {
				return `bash -c 'PS3="Pick a fruit: "; select f in apple banana cherry; do echo "picked $f"; break; done'`
			},
			kind: "choice", prompt: "Pick a fruit: ",
			turns: []turn{{input: "2", want: "picked banana"}}},

		// Curses dialogs and pickers: each writes its answer to fd 3.
		{name: "dialog-inputbox", needs: []string{"dialog"},
			command: dialogCmd(`--inputbox "Your name" 8 40`),
			kind:    "line",
			turns:   []turn{{input: "ada", keys: []string{"Enter"}}},
			check:   answered("ada")},
		{name: "dialog-menu", needs: []string{"dialog"},
			command: dialogCmd(`--menu "Pick a database" 12 50 3 postgres PostgreSQL mysql MySQL sqlite SQLite`),
			kind:    "choice",
			turns:   []turn{{keys: []string{"Down", "Enter"}}},
			check:   answered("mysql")},
		{name: "dialog-checklist", needs: []string{"dialog"},
			command: dialogCmd(`--checklist "Components" 12 50 3 core Core on docs Docs off tests Tests off`),
			kind:    "choice",
			turns:   []turn{{keys: []string{"Down", "Space"}, kind: "choice"}, {keys: []string{"Enter"}}},
			check:   answered("core docs")},
		{name: "whiptail-checklist", needs: []string{"whiptail"},
			command: func(*testing.T, string) string {
				return `whiptail --output-fd 3 --checklist "Components" 12 50 3 core Core ON docs Docs OFF tests Tests OFF 3>answer`
			},
			kind:  "choice",
			turns: []turn{{keys: []string{"Down", "Down", "Space"}, kind: "choice"}, {keys: []string{"Enter"}}},
			check: answered(`"core" "tests"`)},
		{name: "tig", needs: []string{"tig", "git"}, command: tigRepo,
			kind:  "choice", // a list of commits, one highlighted
			turns: []turn{{keys: []string{"Down"}, kind: "choice"}, {input: "q", bare: true}}},

		// A passphrase dialog drawn by a helper gpg-agent starts in a
		// session of its own (issue 32, cause 2).
		{name: "gpg-pinentry", needs: []string{"gpg", "gpg-agent", "pinentry-curses", "gpgconf"}, command: gpgSymmetric,
			kind: "password", prompt: "Passphrase",
			turns: []turn{
				{input: secretWord, secret: true, kind: "password"},
				{input: secretWord, secret: true},
			},
			check: func(t *testing.T, dir string) {
				if _, err := os.Stat(filepath.Join(dir, "secret.txt.gpg")); err != nil {
					t.Errorf("gpg encrypted nothing: %v", err)
				}
			}},

		// False friends (issue 32, cause 3): a prompt on screen, the
		// terminal in a poll, but a timer is what is awaited.
		{name: "node-timer", needs: []string{"node"}, notWaiting: true, want: "signed in",
			command: func(*testing.T, string) string {
				return `node -e 'const rl = require("readline").createInterface({input: process.stdin, output: process.stdout}); ` +
					`process.stdout.write("Signing in as ada: "); setTimeout(() => { console.log("\nsigned in"); rl.close(); }, 3000)'`
			}},
		{name: "python-select-timer", needs: []string{"python3"}, notWaiting: true, want: "timed out",
			command: func(*testing.T, string) string {
				return `python3 -c 'import os, select, sys; r, w = os.pipe(); sys.stdout.write("Password: "); sys.stdout.flush(); ` +
					`select.select([sys.stdin, r], [], [], 3); print("\ntimed out")'`
			}},
		{name: "ssh-remote-sleep", needs: []string{"ssh", "sshd", "ssh-keygen"}, notWaiting: true, textOnly: true, want: "remote done",
			command: sshRemoteSleep},
	}
}

// Spec: issue 32: "extend the real-program test with at least fifteen programs it does not drive today, across those kinds ... and the false friends of cause 3; report per program, in both protocol versions ... and the prompt-answer latency per evidence kind".
func TestRealProgramsSecondSet(t *testing.T) {
	runPrograms(t, secondPrograms())
}

// timer runs a false friend: it must end on its timer, not be answered
// as waiting while the timer runs.
func timer(t *testing.T, s *server, p program) {
	dir := t.TempDir()
	start := time.Now()
	r := s.exec(p.command(t, dir), map[string]any{"yield_ms": longYield, "cwd": dir})
	if r.m["waiting_for_input"] == true && p.textOnly {
		if r.str("input_signal") != "quiet_prompt" || r.str("input_confidence") != "low" {
			t.Fatalf("a prompt seen only as text claimed more: %s", r.text)
		}
		id := r.str("process_id")
		s.call("wait", map[string]any{"process_id": id, "until": regexp.QuoteMeta(p.want), "timeout_ms": longYield})
		r = s.call("wait", map[string]any{"process_id": id, "timeout_ms": longYield})
	}
	if r.m["waiting_for_input"] == true || r.str("status") != "completed" {
		t.Fatalf("after %v, a program waiting on a timer was answered: %s", time.Since(start).Round(time.Millisecond), r.text)
	}
	if !shows(r, p.want) {
		t.Errorf("want %q in %s", p.want, r.text)
	}
}

// dialogCmd runs dialog with its answer written to the file "answer".
func dialogCmd(args string) func(*testing.T, string) string {
	return func(*testing.T, string) string { return "dialog --output-fd 3 " + args + " 3>answer" }
}

// answered checks the answer a dialog wrote.
func answered(want string) func(*testing.T, string) {
	return func(t *testing.T, dir string) {
		if b, err := os.ReadFile(filepath.Join(dir, "answer")); err != nil || strings.TrimSpace(string(b)) != want {
			t.Errorf("the dialog answered %q (%v), want %q", b, err, want)
		}
	}
}

// opensslReq asks for a key's passphrase and then for a certificate
// request's names, with the questions' defaults in brackets.
func opensslReq(_ *testing.T, dir string) string {
	return "openssl req -new -newkey ed25519 -keyout " + filepath.Join(dir, "key.pem") + " -out " + filepath.Join(dir, "req.csr")
}

// tigRepo makes a repository with a few commits for tig to list.
func tigRepo(t *testing.T, dir string) string {
	for i, msg := range []string{"one", "two", "three"} {
		if err := os.WriteFile(filepath.Join(dir, "f"), []byte(strconv.Itoa(i)), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{{"init", "-q"}, {"add", "f"}, {"commit", "-q", "-m", msg}} {
			cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("git %v: %v\n%s", args, err, out)
			}
		}
	}
	return "tig"
}

// shortTemp is a directory with a path short enough for a Unix socket
// (t.TempDir's are not), removed at the end of the test.
func shortTemp(t *testing.T, prefix string) string {
	d, err := os.MkdirTemp("", prefix)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(d) })
	return d
}

// gpgSymmetric encrypts a file with a passphrase that gpg-agent asks for
// through pinentry-curses on the command's terminal.
func gpgSymmetric(t *testing.T, dir string) string {
	home := gpgtest.Home(t, shortTemp(t, "gpg"))
	if err := os.WriteFile(filepath.Join(dir, "secret.txt"), []byte("the plan\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// gpg-agent, started by gpg, stays in the command's tree (it carries
	// its tag) and keeps it running: the command ends it, as a person
	// done with gpg in a throwaway home would.
	return "export GNUPGHOME=" + home + " GPG_TTY=$(tty); gpg --batch=no --pinentry-mode ask --symmetric secret.txt; rc=$?; gpgconf --kill gpg-agent; exit $rc"
}

// postgres starts a PostgreSQL cluster of the test's own whose one user,
// ada, logs in with a password (SCRAM), and returns psql asking for it.
func postgres(t *testing.T, _ string) string {
	need(t, "psql")
	initdb, err := exec.LookPath("initdb")
	if err != nil {
		matches, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
		if len(matches) == 0 {
			t.Skip("postgresql (initdb) is not installed")
		}
		initdb = matches[len(matches)-1]
	}
	bin := filepath.Dir(initdb)
	if real, err := filepath.EvalSymlinks(initdb); err == nil {
		bin = filepath.Dir(real)
	}
	dir := shortTemp(t, "pg")
	var cred *syscall.Credential
	if os.Geteuid() == 0 { // postgres refuses to run as root
		u, err := user.Lookup("postgres")
		if err != nil {
			t.Skip("postgres cannot run as root and there is no postgres user")
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		if err := os.Chown(dir, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	run := func(name string, args ...string) {
		cmd := exec.Command(filepath.Join(bin, name), args...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		cmd.Env = append(os.Environ(), "LC_ALL=C")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s %v: %v\n%s", name, args, err, out)
		}
	}
	pw := filepath.Join(dir, "pw")
	if err := os.WriteFile(pw, []byte(secretWord+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if cred != nil {
		_ = os.Chown(pw, int(cred.Uid), int(cred.Gid))
	}
	data := filepath.Join(dir, "data")
	run("initdb", "-D", data, "-U", "ada", "--auth=scram-sha-256", "--pwfile="+pw, "--no-sync", "-E", "UTF8")
	run("pg_ctl", "-D", data, "-l", filepath.Join(dir, "log"), "-w", "-o",
		"-k "+dir+" -c listen_addresses= -c fsync=off", "start")
	t.Cleanup(func() {
		cmd := exec.Command(filepath.Join(bin, "pg_ctl"), "-D", data, "-m", "immediate", "stop")
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		_ = cmd.Run()
	})
	return "env -u PGPASSWORD PGPASSFILE=/nonexistent psql -X -P pager=off -h " + dir + " -U ada -d postgres"
}

// sshRemoteSleep runs an sshd of the test's own on a free port and has
// ssh run a remote command that prints a password-shaped prompt and
// sleeps: ssh polls its terminal and the connection, and nothing asks.
func sshRemoteSleep(t *testing.T, _ string) string {
	sshd, err := exec.LookPath("sshd")
	if err != nil {
		t.Skip("sshd is not installed")
	}
	if os.Geteuid() != 0 {
		t.Skip("sshd needs root here")
	}
	dir := shortTemp(t, "ssh")
	keygen := func(path string) {
		if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", path).CombinedOutput(); err != nil {
			t.Fatalf("ssh-keygen: %v\n%s", err, out)
		}
	}
	keygen(filepath.Join(dir, "host"))
	keygen(filepath.Join(dir, "id"))
	if err := os.Rename(filepath.Join(dir, "id.pub"), filepath.Join(dir, "authorized_keys")); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	_ = ln.Close()
	conf := fmt.Sprintf("Port %d\nListenAddress 127.0.0.1\nHostKey %s/host\nAuthorizedKeysFile %s/authorized_keys\n"+
		"PidFile none\nStrictModes no\nUsePAM no\nPasswordAuthentication no\nKbdInteractiveAuthentication no\nPermitRootLogin prohibit-password\n",
		port, dir, dir)
	if err := os.WriteFile(filepath.Join(dir, "sshd_config"), []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll("/run/sshd", 0o755); err != nil { // its privilege separation directory
		t.Fatal(err)
	}
	cmd := exec.Command(sshd, "-D", "-e", "-f", filepath.Join(dir, "sshd_config"))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err == nil {
			_ = c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("sshd does not listen: %v", err)
		}
		time.Sleep(20 * time.Millisecond) // polling a port that is not yet open
	}
	return fmt.Sprintf("ssh -tt -i %s/id -p %d -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR "+
		`root@127.0.0.1 'printf "Password: "; sleep 3; echo; echo remote done'`, dir, port)
}
