//go:build linux

package conformance

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 30 item 2: a secret written with wait_for_password is typed only
// where the kernel shows a program reading its terminal with echo off, and
// is redacted from that process's output from then on, even when the
// program echoes it itself. The probe that shows a read is Linux's.

// pyScript writes a Python program to a file and returns the command that
// runs it.
func pyScript(t *testing.T, src string) string {
	t.Helper()
	need(t, "python3")
	path := filepath.Join(t.TempDir(), "prog.py")
	if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	return "python3 " + path
}

// noSecretOnDisk fails if any file under dir holds secret; it returns how
// many files it read.
func noSecretOnDisk(t *testing.T, dir, secret string) int {
	t.Helper()
	found := 0
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Error(err)
			return nil
		}
		found++
		if strings.Contains(string(b), secret) {
			t.Errorf("the secret leaked into %s:\n%s", path, b)
		}
		return nil
	})
	return found
}

// Python's getpass reads the terminal in canonical mode with echo off:
// the kernel shows it, so the secret is typed.
func TestPasswordTypedAtGetpassPrompt(t *testing.T) {
	const secret = "getpass-Secret-771"
	cmd := pyScript(t, "import getpass\npw = getpass.getpass('Password: ')\nprint('length', len(pw))\n")
	forEachProtocol(t, nil, func(t *testing.T, s *server) {
		r := waiting(t, s.exec(cmd, map[string]any{"yield_ms": longYield}), "password")
		if r.str("input_signal") != "tty_read" {
			t.Errorf("getpass seen by %q, want tty_read: %s", r.str("input_signal"), r.text)
		}
		a := s.call("write", map[string]any{"process_id": r.str("process_id"), "input": secret, "newline": true, "wait_for_password": true, "yield_ms": longYield})
		if a.isError || a.m["ok"] != true || !strings.Contains(a.str("stdout"), "length 18") {
			t.Errorf("write: %s", a.text)
		}
		if strings.Contains(a.text, secret) {
			t.Errorf("the secret leaked: %s", a.text)
		}
	})
}

// A prompt that looks like a password prompt, from a program that waits
// in select() on its terminal and another descriptor and reads with the
// terminal's echo on, gets nothing: prompt text alone is never enough, and
// the refusal says what to do instead.
func TestPasswordRefusedWhereTheKernelShowsNoRead(t *testing.T) {
	const secret = "select-Secret-5521"
	cmd := pyScript(t, `import os, select, sys
other, _ = os.pipe()
sys.stdout.write("Password: ")
sys.stdout.flush()
while True:
    r, _, _ = select.select([sys.stdin, other], [], [], 60)
    if sys.stdin in r:
        break
line = sys.stdin.readline()
print("got", line.strip())
`)
	forEachProtocol(t, nil, func(t *testing.T, s *server) {
		r := s.exec(cmd, map[string]any{"yield_ms": longYield})
		id := r.str("process_id")
		if r.m["waiting_for_input"] != true {
			t.Fatalf("exec: %s", r.text)
		}
		a := s.call("write", map[string]any{"process_id": id, "input": secret, "newline": true, "wait_for_password": true, "yield_ms": longYield})
		if !a.isError || a.m["ok"] != false || !strings.Contains(a.str("error"), "nothing was written") ||
			!strings.Contains(a.str("error"), "ask_human") || !strings.Contains(a.str("error"), "echo") {
			t.Errorf("at a polled prompt: %s", a.text)
		}
		all := s.call("read", map[string]any{"process_id": id, "since_seq": 0})
		if strings.Contains(all.text, secret) || strings.Contains(all.text, "got") {
			t.Errorf("the secret was typed: %s", all.text)
		}
	})
}

// A line editor's masked prompt (raw mode, echo off, one '*' per key) is a
// password prompt: the kernel shows the read with echo off.
func TestMaskedRawPromptIsPassword(t *testing.T) {
	const secret = "masked-Secret-9034"
	cmd := pyScript(t, `import os, sys, termios, tty
fd = sys.stdin.fileno()
old = termios.tcgetattr(fd)
tty.setraw(fd)
try:
    os.write(1, b"Password: ")
    pw = b""
    while True:
        c = os.read(fd, 1)
        if c in (b"\r", b"\n"):
            break
        pw += c
        os.write(1, b"*")
finally:
    termios.tcsetattr(fd, termios.TCSADRAIN, old)
print("\nlength", len(pw))
`)
	forEachProtocol(t, nil, func(t *testing.T, s *server) {
		r := waiting(t, s.exec(cmd, map[string]any{"yield_ms": longYield}), "password")
		a := s.call("write", map[string]any{"process_id": r.str("process_id"), "input": secret, "newline": true, "wait_for_password": true, "yield_ms": longYield})
		if a.isError || a.m["ok"] != true || !strings.Contains(a.str("stdout"), "length 18") {
			t.Errorf("write: %s", a.text)
		}
		if strings.Contains(a.text, secret) {
			t.Errorf("the secret leaked: %s", a.text)
		}
	})
}

// A program that prints the secret it read back is redacted in every view:
// the write's answer, read, the screen and the disk log.
func TestTypedSecretRedactedWhenEchoed(t *testing.T) {
	const secret = "echoed-Secret-4410"
	cmd := pyScript(t, "import getpass\npw = getpass.getpass('Password: ')\nprint('you typed', pw, 'twice:', pw + pw)\nimport time\ntime.sleep(60)\n")
	logs := t.TempDir()
	forEachProtocolInTurn(t, []string{"YIELDSHELL_LOG_DIR=" + logs}, func(t *testing.T, s *server) {
		r := waiting(t, s.exec(cmd, map[string]any{"yield_ms": longYield}), "password")
		id := r.str("process_id")
		a := s.call("write", map[string]any{"process_id": id, "input": secret, "newline": true, "wait_for_password": true, "yield_ms": 3000})
		if a.isError || a.m["ok"] != true {
			t.Fatalf("write: %s", a.text)
		}
		s.readUntil(id, "twice")
		all := s.call("read", map[string]any{"process_id": id, "since_seq": 0})
		scr := s.call("read", map[string]any{"process_id": id, "view": "screen"})
		if !strings.Contains(all.text, "you typed [REDACTED") {
			t.Errorf("read does not show the redaction: %s", all.text)
		}
		for _, x := range []result{a, all, scr} {
			if strings.Contains(x.text, secret) {
				t.Errorf("the secret leaked: %s", x.text)
			}
		}
		ps := s.call("ps", map[string]any{})
		if strings.Contains(ps.text, secret) {
			t.Errorf("the secret leaked into ps: %s", ps.text)
		}
	})
	if noSecretOnDisk(t, logs, secret) == 0 {
		t.Errorf("no disk log in %s", logs)
	}
}
