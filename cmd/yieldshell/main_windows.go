package main

import (
	"fmt"
	"os"
)

// On Windows yieldshell refuses to start: it is built on POSIX pseudo-
// terminals, sessions and process groups, which Windows does not have
// (ConPTY and job objects would be a separate engine).
func main() {
	fmt.Fprintln(os.Stderr, "yieldshell: Windows is not supported; it needs POSIX pseudo-terminals and process groups. Run it under WSL 2, or in a Linux container or VM and connect with --http (see README).")
	os.Exit(1)
}
