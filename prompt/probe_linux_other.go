//go:build linux && !amd64

package prompt

// archClass: newer architectures (arm64, riscv64) have only the calls
// classify knows already.
func archClass(nr int64) syscallClass { return scOther }

// archTimeoutArg: the same calls, whose timeouts timeoutArg knows.
func archTimeoutArg(nr int64) (timeoutForm, int) { return toNone, 0 }
