//go:build linux

package conformance

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A program reading the terminal from outside the foreground group (here
// a setsid child that opens it by name) is seen waiting at once, by the
// kernel, and what is written reaches it.
//
// Spec: issue 32 item 1: "readers of the terminal anywhere in the
// command's tree or with the terminal open count".
func TestOutsideReaderWaits(t *testing.T) {
	need(t, "setsid")
	forEachProtocol(t, nil, func(t *testing.T, s *server) {
		began := time.Now()
		r := s.exec(`T=$(tty); printf 'Passphrase: '; setsid -w sh -c "read -r x < $T; echo got \$x"`, map[string]any{"yield_ms": longYield})
		took := time.Since(began)
		waiting(t, r, "line")
		if r.str("input_signal") != "tty_read" || r.str("input_confidence") != "high" || !strings.Contains(r.str("prompt"), "Passphrase:") {
			t.Errorf("want a kernel-seen read at the prompt: %s", r.text)
		}
		t.Logf("exec to waiting answer: %v", took)
		if took > 5*time.Second {
			t.Errorf("answered after %v", took)
		}
		a := s.reply(r.str("process_id"), "swordfish")
		if !strings.Contains(a.str("stdout"), "got swordfish") {
			t.Errorf("the write did not reach the reader: %s", a.text)
		}
	})
}

// nodeTimer prints a prompt-shaped line, then waits 3 s on a timer with
// readline open before it asks.
const nodeTimer = `const rl = require('readline').createInterface({input: process.stdin, output: process.stdout});
process.stdout.write('Signing in as ada: ');
setTimeout(() => rl.question('Name: ', a => { console.log('hello ' + a); rl.close(); }), 3000);`

// A prompt-shaped line followed by a timer, while the event loop polls
// the terminal, is not a wait for input; the question after it is, and
// the answer says it rests on the prompt's text alone.
//
// Spec: issue 32 item 1: "a poll with a finite timeout is a timer unless
// other evidence says otherwise, and an answer that rests on text alone
// says so".
func TestTimerIsNotWaiting(t *testing.T) {
	need(t, "node")
	forEachProtocol(t, nil, func(t *testing.T, s *server) {
		script := filepath.Join(t.TempDir(), "timer.js")
		if err := os.WriteFile(script, []byte(nodeTimer), 0o600); err != nil {
			t.Fatal(err)
		}
		r := s.exec("node "+script, map[string]any{"yield_ms": 2000})
		if r.m["waiting_for_input"] == true || r.str("yield_reason") == "input_wait" {
			t.Fatalf("a timer taken for a prompt: %s", r.text)
		}
		if !strings.Contains(r.str("stdout"), "Signing in as ada: ") {
			t.Fatalf("no prompt-shaped line yet: %s", r.text)
		}
		w := s.call("wait", map[string]any{"process_id": r.str("process_id"), "timeout_ms": longYield})
		if w.m["waiting_for_input"] != true || !strings.Contains(w.str("prompt"), "Name: ") ||
			w.str("input_signal") != "quiet_prompt" || w.str("input_confidence") != "low" {
			t.Fatalf("want a wait at Name: resting on text: %s", w.text)
		}
		a := s.reply(r.str("process_id"), "ada")
		if !strings.Contains(a.str("stdout"), "hello ada") {
			t.Errorf("the answer did not reach node: %s", a.text)
		}
	})
}

// gpg asks for a passphrase through gpg-agent's pinentry-curses, which a
// daemon started in a session of its own and which opens the terminal by
// name: it is seen waiting long before the yield ends, and the
// passphrase typed encrypts the file.
func TestPinentryDialogWaits(t *testing.T) {
	need(t, "gpg", "gpg-agent", "pinentry-curses", "gpgconf")
	forEachProtocol(t, nil, func(t *testing.T, s *server) {
		home := t.TempDir()
		gh := filepath.Join(home, "gnupg")
		if err := os.Mkdir(gh, 0o700); err != nil {
			t.Fatal(err)
		}
		pin, _ := exec.LookPath("pinentry-curses")
		if err := os.WriteFile(filepath.Join(gh, "gpg-agent.conf"), []byte("pinentry-program "+pin+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		plain := filepath.Join(home, "plain.txt")
		if err := os.WriteFile(plain, []byte("attack at dawn\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			c := exec.Command("gpgconf", "--kill", "gpg-agent")
			c.Env = append(os.Environ(), "GNUPGHOME="+gh)
			_ = c.Run()
		})
		cmd := "export GNUPGHOME=" + gh + " GPG_TTY=$(tty); gpg --no-symkey-cache --pinentry-mode ask --symmetric -o " + plain + ".gpg " + plain +
			// The agent carries the command's tag: the command lasts as
			// long as it does.
			"; rc=$?; gpgconf --kill gpg-agent; exit $rc"
		began := time.Now()
		r := s.exec(cmd, map[string]any{"yield_ms": longYield})
		if r.m["waiting_for_input"] != true || r.str("input_signal") != "tty_read" || r.str("input_confidence") != "high" {
			t.Fatalf("pinentry's dialog not seen waiting: %s", r.text)
		}
		if took := time.Since(began); took > 10*time.Second {
			t.Errorf("seen after %v", took)
		}
		id := r.str("process_id")
		const pass = "correct horse 42!"
		for i := range 2 { // the passphrase, then its repetition
			a := s.call("write", map[string]any{"process_id": id, "input": pass, "newline": true, "yield_ms": longYield})
			if a.isError {
				t.Fatalf("write %d: %s", i, a.text)
			}
			if i == 0 && a.m["waiting_for_input"] != true {
				t.Fatalf("no repetition asked: %s", a.text)
			}
		}
		w := s.call("wait", map[string]any{"process_id": id, "timeout_ms": longYield})
		if w.m["exit_code"] != float64(0) {
			t.Fatalf("gpg did not finish: %s", w.text)
		}
		all := s.call("read", map[string]any{"process_id": id, "since_seq": 0})
		if strings.Contains(all.text, pass) {
			t.Errorf("the passphrase shows in the output: %s", all.text)
		}
		dec := exec.Command("gpg", "--batch", "--pinentry-mode", "loopback", "--passphrase", pass, "-d", plain+".gpg")
		dec.Env = append(os.Environ(), "GNUPGHOME="+gh)
		if out, err := dec.Output(); err != nil || string(out) != "attack at dawn\n" {
			t.Errorf("decrypting: %q, %v", out, err)
		}
	})
}
