//go:build !unix

package linerpc

import "os"

// pollable: the runtime polls no pipe on this system.
func pollable(*os.File) *os.File { return nil }
