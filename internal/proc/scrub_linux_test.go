package proc

import (
	"bytes"
	"os"
	"os/exec"
	"testing"
)

const childEnv = "ENVSCRUB_TEST_CHILD"

// TestScrubHidesFromProcEnviron runs this test binary again with a secret
// in its initial environment; the child scrubs it and then reads its own
// /proc/PID/environ, as a command the server runs would read its parent's.
func TestScrubHidesFromProcEnviron(t *testing.T) {
	const secret = "s3cret-token-value-0123456789"
	if os.Getenv(childEnv) != "" {
		if err := ScrubEnv("SCRUB_ME"); err != nil {
			t.Fatal(err)
		}
		if v, ok := os.LookupEnv("SCRUB_ME"); ok {
			t.Fatalf("SCRUB_ME still set to %q", v)
		}
		b, err := os.ReadFile("/proc/self/environ")
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte(secret)) || bytes.Contains(b, []byte("SCRUB_ME")) {
			t.Fatalf("/proc/self/environ still holds the variable")
		}
		if !bytes.Contains(b, []byte("KEEP_ME=kept\x00")) {
			t.Fatalf("/proc/self/environ lost another variable")
		}
		if os.Getenv("KEEP_ME") != "kept" {
			t.Fatal("KEEP_ME lost")
		}
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestScrubHidesFromProcEnviron$", "-test.v")
	cmd.Env = append(os.Environ(), childEnv+"=1", "SCRUB_ME="+secret, "KEEP_ME=kept")
	out, err := cmd.CombinedOutput()
	if err != nil || !bytes.Contains(out, []byte("PASS")) {
		t.Fatalf("child: %v\n%s", err, out)
	}
}
