package remote

import (
	"context"
	"os"
	"testing"

	"github.com/yieldshell/yieldshell/internal/executor"
)

// TestMain lets the test binary be the executor (and its relay), as the
// yieldshell binary is: the sshd tests copy it to the other user's home.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "executor" {
		os.Exit(executor.Main(context.Background(), os.Args[2:], os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}
