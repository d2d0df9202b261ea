package remote

import (
	"context"
	"os/exec"
	"strconv"
	"testing"
	"time"
)

func needs(t *testing.T, prog string) {
	t.Helper()
	if _, err := exec.LookPath(prog); err != nil {
		t.Skipf("needs %s", prog)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

func contextTimeout(d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), d)
}
