package remote

import (
	"os/exec"
	"strconv"
	"testing"
)

func needs(t *testing.T, prog string) {
	t.Helper()
	if _, err := exec.LookPath(prog); err != nil {
		t.Skipf("needs %s", prog)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }
