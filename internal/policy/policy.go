package policy

import (
	"regexp"
	"time"
)

// SideEffect is one of the 21 categories a command declares.
type SideEffect string

// Config is the server configuration, read once at start-up.
type Config struct {
	Cwd    Cwds     // where commands may start, and the client's roots
	Limits Limits   // sizes and counts
	Times  Times    // yields, timeouts, purge
	Rules  Rules    // what a command may be and do
	Log    LogFiles // where processes' logs are also written
	// Sandbox: how commands are confined by the kernel (sandbox.go).
	Sandbox Sandbox

	TTY     bool   // default for exec's tty (true)
	Toolset string // ToolsetDefault, ToolsetShellYeah or ToolsetAll
	Shell   string // runs a command that names no shell (DefaultShell); "" = /bin/sh
	// ResourceLinks: YIELDSHELL_RESOURCE_LINKS: answers link to logs for
	// every client, not only those that read resources.
	ResourceLinks bool
	// Remote is how commands reach other hosts (exec's host).
	Remote Remote
}

// Remote is YIELDSHELL_HOSTS and YIELDSHELL_SSH.
type Remote struct {
	Hosts []string // the hosts allowed; empty = any
	SSH   []string // the ssh command and its options; empty = ssh
}

// Cwds are the directories commands start in, and how the client's roots
// (roots.go) change them.
type Cwds struct {
	Default string   // absolute, symlinks resolved
	Allowed []string // absolute, symlinks resolved; empty = any
	// ExplicitDefault: the operator set YIELDSHELL_DEFAULT_CWD: client
	// roots never change it.
	ExplicitDefault bool
	// FromRoots: YIELDSHELL_ALLOWED_CWDS=roots: cwds confined to the
	// client's roots.
	FromRoots        bool
	rootsApplied     bool // WithRoots made this copy
	defaultFromRoots bool // Default is a client root
	noRoots          string
}

// Limits bound what one server holds and answers.
type Limits struct {
	OutputBytes int // per-response output cap (20000)
	BufferBytes int // output retained per process (1 MiB)
	ScreenCells int // largest terminal, cols x rows
	Processes   int // running processes (50)
	LogLines    int // lines the mcp-shell-yeah tools show of a shell (1000)
}

// Times are the durations calls wait and processes live.
type Times struct {
	DefaultYield   time.Duration // 5 s
	MaxYield       time.Duration // 300 s
	DefaultTimeout time.Duration // 0 = none
	TimeoutGrace   time.Duration // past timeout_ms, SIGTERM to SIGKILL (2 s)
	PurgeAfter     time.Duration // finished records are forgotten after this; 0 = never
}

// Rules decide what a command may be and do.
type Rules struct {
	DenyCommand  *regexp.Regexp
	AllowCommand *regexp.Regexp
	RedactEnv    *regexp.Regexp
	Blocked      []SideEffect // sorted
	Ask          bool         // YIELDSHELL_ASK: a person may approve an askable refusal (approve.go)
}

// LogFiles is where process logs are also written.
type LogFiles struct {
	Dir      string // "" = nowhere
	MaxBytes int64  // a log file is rotated at this size
}

// Var documents one configuration variable.
type Var struct{ Name, Default, Help string }

// Refusal is a policy decision not to start a command. Its Message is meant
// for the agent: it names the rule, says nothing was started and what to do
// instead.
type Refusal struct {
	Rule    string // "side_effects", "deny_command_regex", "allow_command_regex", "cwd", "max_processes"
	Message string
	// Askable: with Ask set, a person may allow this one call (approve.go).
	Askable bool
}

func (r *Refusal) Error() string { return r.Message }

func refuse(rule, msg string) *Refusal { return &Refusal{Rule: rule, Message: msg} }
