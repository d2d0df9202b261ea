package session

import (
	"context"
	"time"

	"github.com/yieldshell/yieldshell/internal/policy"
	"github.com/yieldshell/yieldshell/pty"
)

// The terminal size a command gets when none is asked for (pty's).
const (
	DefaultCols = pty.DefaultCols
	DefaultRows = pty.DefaultRows
)

// Spec describes a command to start.
type Spec struct {
	Command     string
	SideEffects []string
	Cwd         string
	Env         map[string]string
	Shell       string // program that runs Command with -c; "" means the server's (policy.Config.DefaultShell)
	Stdin       string
	CloseStdin  bool
	Name        string        // normalised by Start (NormalizeName)
	Restart     RestartPolicy // crash restarts; needs a Name
	Timeout     time.Duration // 0 means none
	TTY         bool
	Cols, Rows  uint16
	// Host, when set, is the ssh destination the command runs on, through
	// the Manager's Hosts (remote.go); "" is this machine.
	Host string
	// Waived names the askable policy rules a person allowed this one
	// start to pass (policy.Config.Waive; approve.go).
	Waived []string
	// ShownCwd, with Waived, is the directory the person was shown: the
	// start runs there or not at all (shown.go).
	ShownCwd *ShownDir
	// Writable are paths a person allowed this one start to write
	// besides what its workspace-write sandbox allows (Manager.Widenable;
	// askhuman's sandbox.go). Never from a client's arguments.
	Writable []string
	// ConnectApprover, when set, makes the function that decides a held
	// connect of this start's host-list sandbox (netproxy.Config.Approve),
	// given the command as answers show it: one per run, nil when nobody
	// may be asked. Never from a client's arguments.
	ConnectApprover func(command string) func(ctx context.Context, host string, port uint16) bool `json:"-"`
	// Roots are the roots of the client that asked for this start
	// (policy.Config.WithRoots): nil for a connection without them. A
	// restart checks against the same roots.
	Roots *policy.Roots
	// Sandbox tightens the server's sandbox for this start ("" keeps
	// it): policy.SandboxWorkspaceWrite or policy.SandboxReadOnly.
	Sandbox string
}

// startSpec is a Spec after policy, with what was resolved.
type startSpec struct {
	Spec
	cwd       string
	tag       string // value of tagKey for this process and its descendants
	timeout   time.Duration
	startedAt time.Time
	// releaseSlot frees the process's place under the process limit.
	releaseSlot func()
	prober      Prober
	// integrated: the command is a shell we integrated, run by exec, so
	// the process's pid is the shell's own.
	integrated bool
	sandbox    *sandboxRun // nil: unconfined
	timing     *timing
	// sharePersonSecret redacts a secret a person typed into this process
	// from every process of the Manager (shared.go).
	sharePersonSecret func(string)
	// lateOutput tells the Manager that the output of a process that had
	// ended reached EOF (retention.go).
	lateOutput func()
}

// RestartPolicy restarts a process that crashes: it exits with a non-zero
// code, or a signal that neither stop, restart, a timeout nor shutdown sent
// killed it. The n-th restart in a row waits Delay * 2^(n-1), at most
// MaxDelay, and never less than 100 ms.
type RestartPolicy struct {
	MaxRetries int           // 0: never restart
	Delay      time.Duration // before the first restart
	MaxDelay   time.Duration // cap of the back-off; 0 means DefaultMaxRestartDelay
}

// DefaultMaxRestartDelay caps the exponential back-off between crash
// restarts when the policy gives no cap.
const DefaultMaxRestartDelay = 30 * time.Second

// backoff is the delay before the restart that follows attempt earlier ones.
func (rp RestartPolicy) backoff(attempt int) time.Duration {
	limit := rp.MaxDelay
	if limit <= 0 {
		limit = DefaultMaxRestartDelay
	}
	d := max(rp.Delay, 0)
	for range attempt {
		if d >= limit || d == 0 {
			break
		}
		d *= 2
	}
	return min(d, max(limit, rp.Delay))
}

// Crashed reports whether a run ended in a crash: a non-zero exit code, or
// a signal that nobody at this end sent.
func (in Info) Crashed() bool {
	switch in.EndedBy {
	case EndedBySignal:
		return true
	case EndedByExit:
		return in.ExitCode != nil && *in.ExitCode != 0
	}
	return false
}

// due says whether the policy calls for a crash restart of a run that
// ended as in says and followed attempt crash restarts in a row, and how
// many came before it in a row: a run that lived healthyRun starts the
// count over.
func (rp RestartPolicy) due(attempt int, in Info, healthyRun time.Duration) (int, bool) {
	if !in.Crashed() {
		return 0, false
	}
	if in.Duration >= healthyRun {
		attempt = 0
	}
	return attempt, attempt < rp.MaxRetries
}
