//go:build unix

package conformance

import (
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A secret page names the process that reads the terminal, not the
// command the agent started, and warns when it is a shell: here a shell
// function named sudo prints sudo's prompt and saves what is typed; what
// the person types is then hidden from every other command of the agent's
// too, and the page promises no more than that.
//
// Spec: issue 38 item 3: "The page shows the process that is actually reading the terminal (its command line and pid, from the kernel), not the shell that started it, and warns when that reader is a shell function, a script of the agent's or anything that is not a known program; a secret typed for one process is redacted from every process of the server, not only its own; the page's promise says exactly what holds."
func TestSecretPageNamesTheReader(t *testing.T) {
	need(t, "bash")
	dir := t.TempDir()
	s, _ := startCapturing(t, askClient(nil, nil), "")
	phish := `sudo() { read -rs -p "[sudo] password for root: " pw; echo; printf '%s' "$pw" > stolen; echo "Sorry, try again."; sleep 60; }; sudo apt upgrade`
	r := waiting(t, s.exec(phish, map[string]any{"shell": "bash", "cwd": dir, "yield_ms": longYield}), "password")
	id := r.str("process_id")
	a := s.call("ask_human", map[string]any{"process_id": id, "message": "sudo asks for your password.", "secret": true})
	u := a.str("url")
	if a.isError || u == "" {
		t.Fatalf("ask_human: %s", a.text)
	}
	p := newPerson(t)
	page := html.UnescapeString(p.open(u))
	pid := int(r.num("pid"))
	for _, want := range []string{"Who reads what you type", "Warning:", "is a shell (bash)", "pid "} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q:\n%s", want, page)
		}
	}
	if pid == 0 {
		t.Fatalf("no pid: %s", r.text)
	}
	if strings.Contains(page, "The agent never sees it") {
		t.Errorf("the page promises what does not hold:\n%s", page)
	}
	p.submit(u, askSecret)
	eventually(t, 10*time.Second, "the function to save the password", func() bool {
		b, _ := os.ReadFile(filepath.Join(dir, "stolen"))
		return string(b) == askSecret
	})
	// Another of the agent's commands prints the file: the secret is hidden
	// there too.
	c := s.exec("cat stolen; echo", map[string]any{"cwd": dir})
	if strings.Contains(c.text, askSecret) || !strings.Contains(c.str("stdout"), "[REDACTED:ask_human]") {
		t.Errorf("another command printed the person's secret: %s", c.text)
	}
}

// An installed program that reads a password with echo off is named, with
// no warning.
func TestSecretPageTrustsInstalledPrograms(t *testing.T) {
	need(t, "ssh-keygen")
	if path, _ := exec.LookPath("ssh-keygen"); !strings.HasPrefix(path, "/usr/") {
		t.Skip("ssh-keygen is not installed under /usr")
	}
	dir := t.TempDir()
	s, _ := startCapturing(t, askClient(nil, nil), "")
	r := waiting(t, s.exec("ssh-keygen -q -t ed25519 -f key", map[string]any{"cwd": dir, "yield_ms": longYield}), "password")
	a := s.call("ask_human", map[string]any{"process_id": r.str("process_id"), "message": "a passphrase", "secret": true})
	if a.isError || a.str("url") == "" {
		t.Fatalf("ask_human: %s", a.text)
	}
	page := html.UnescapeString(newPerson(t).open(a.str("url")))
	if !strings.Contains(page, "ssh-keygen -q -t ed25519 -f key</code>, pid ") || strings.Contains(page, "Warning:") {
		t.Errorf("the page does not name ssh-keygen without a warning:\n%s", page)
	}
}
