//go:build linux

package proc

import (
	"os"
	"testing"
)

func TestOwnedSelf(t *testing.T) {
	if !Owned(os.Getpid()) {
		t.Error("Owned(self) = false")
	}
}
