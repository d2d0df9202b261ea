//go:build unix

package conformance

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A password written before its prompt appears is held until the program
// turns the terminal's echo off, then typed: it reaches no answer, no read
// and no file of the disk log.
//
// Spec: issue 15 item 6: "Give write a way to hold the input until the program is waiting for a password (bounded by yield_ms, answering honestly if that never happens) ... test that the secret never reaches any answer or file."
func TestWriteHoldsPasswordForItsPrompt(t *testing.T) {
	need(t, "bash")
	const secret = "hunter2-correct-horse"
	logs := t.TempDir()
	forEachProtocolInTurn(t, []string{"YIELDSHELL_LOG_DIR=" + logs}, func(t *testing.T, s *server) {
		r := s.exec(`sleep 0.5; read -rs -p "Password: " pw; echo; echo "length ${#pw}"`, map[string]any{"shell": "bash", "yield_ms": 50})
		if r.str("status") != "backgrounded" || r.m["waiting_for_input"] == true {
			t.Fatalf("exec answered after the prompt already: %s", r.text)
		}
		id := r.str("process_id")
		a := s.call("write", map[string]any{"process_id": id, "input": secret, "newline": true, "wait_for_password": true, "yield_ms": longYield})
		if a.isError || a.m["ok"] != true || !strings.Contains(a.str("stdout"), "length 21") {
			t.Errorf("write: %s", a.text)
		}
		all := s.call("read", map[string]any{"process_id": id, "since_seq": 0})
		for _, x := range []result{r, a, all} {
			if strings.Contains(x.text, secret) {
				t.Errorf("the password leaked: %s", x.text)
			}
		}
	})
	found := 0
	_ = filepath.WalkDir(logs, func(path string, d fs.DirEntry, err error) error {
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
			t.Errorf("the password leaked into %s", path)
		}
		return nil
	})
	if found == 0 {
		t.Errorf("no disk log in %s", logs)
	}
}

// When the program never asks for a password (it asks something else, or
// nothing in time), nothing is written and the answer says so.
//
// Spec: issue 15 item 6: "answering honestly if that never happens".
func TestWritePasswordNotAsked(t *testing.T) {
	const secret = "hunter2-correct-horse"
	forEachProtocol(t, nil, func(t *testing.T, s *server) {
		line := waiting(t, s.exec("cat", map[string]any{"yield_ms": longYield}), "line")
		id := line.str("process_id")
		a := s.call("write", map[string]any{"process_id": id, "input": secret, "newline": true, "wait_for_password": true, "yield_ms": longYield})
		if !a.isError || a.m["ok"] != false || a.m["waiting_for_input"] != true || a.str("input_kind") != "line" ||
			!strings.Contains(a.str("error"), "not a password") || !strings.Contains(a.str("error"), "nothing was written") {
			t.Errorf("at a line prompt: %s", a.text)
		}
		all := s.call("read", map[string]any{"process_id": id, "since_seq": 0})
		if strings.Contains(all.text, secret) {
			t.Errorf("the password was written: %s", all.text)
		}

		busy := s.exec("sleep 30", map[string]any{"yield_ms": 50})
		a = s.call("write", map[string]any{"process_id": busy.str("process_id"), "input": secret, "wait_for_password": true, "yield_ms": 300})
		if !a.isError || a.m["ok"] != false || a.str("status") != "running" || !strings.Contains(a.str("error"), "did not ask for a password within 300ms") {
			t.Errorf("no prompt in time: %s", a.text)
		}
	})
}
