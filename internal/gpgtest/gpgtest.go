// Package gpgtest makes throwaway GnuPG homes for tests in which gpg asks
// for a passphrase: gpg-agent, which a daemon's fork puts in a session of
// its own, draws pinentry-curses on the terminal named by GPG_TTY.
package gpgtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Home skips t unless gpg, gpg-agent, gpgconf and pinentry-curses are
// installed, and makes dir (private, existing or not) a GnuPG home whose
// agent asks with pinentry-curses and caches nothing. The agent is ended
// at t's end. dir should be short: the agent's socket lives in it.
func Home(t testing.TB, dir string) string {
	t.Helper()
	for _, p := range []string{"gpg", "gpg-agent", "gpgconf", "pinentry-curses"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Skipf("%s not installed", p)
		}
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	pin, _ := exec.LookPath("pinentry-curses")
	conf := "pinentry-program " + pin + "\nno-allow-external-cache\n"
	if err := os.WriteFile(filepath.Join(dir, "gpg-agent.conf"), []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c := exec.Command("gpgconf", "--kill", "gpg-agent")
		c.Env = append(os.Environ(), "GNUPGHOME="+dir)
		_ = c.Run()
	})
	return dir
}
