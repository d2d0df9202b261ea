//go:build !linux

// Network namespaces are Linux's: elsewhere there is no jail to build.

package netjail

import (
	"context"
	"os"
	"syscall"

	"github.com/yieldshell/yieldshell/internal/netproxy"
	"github.com/yieldshell/yieldshell/internal/sandbox"
)

// Jail is a stub: New always fails.
type Jail struct{}

// New fails with ErrUnsupported.
func New(*netproxy.Proxy) (*Jail, error) { return nil, ErrUnsupported }

func (*Jail) ChildFile() *os.File { return nil }

func (*Jail) Wrap(exe string, fd int, path string, argv []string) (string, []string) {
	return path, argv
}

func (*Jail) Apply(*syscall.SysProcAttr) {}

func (*Jail) Serve(context.Context) error { return ErrUnsupported }

func (*Jail) Close() error { return nil }

// Check fails with ErrUnsupported.
func Check(context.Context, string) error { return ErrUnsupported }

func (*Jail) Confine(*sandbox.Policy, sandbox.Support, string) {}

func (*Jail) Monitor() *sandbox.Monitor { return nil }

// Main fails: there is no helper mode.
func Main([]string) int { return 2 }
