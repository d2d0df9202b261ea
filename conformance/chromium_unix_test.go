//go:build unix

package conformance

import "testing"

// must fails the test on err (the browser steps of the ask_human tests).
func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
