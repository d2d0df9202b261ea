package policy

import (
	"regexp"
	"time"
)

// SideEffect is one of the 21 categories a command declares.
type SideEffect string

// Config is the server configuration, read once at start-up.
type Config struct {
	DefaultCwd     string        // absolute, symlinks resolved
	AllowedCwds    []string      // absolute, symlinks resolved; empty = any
	MaxOutputBytes int           // per-response output cap (20000)
	MaxBufferBytes int           // output retained per process (1 MiB)
	MaxScreenCells int           // largest terminal, cols x rows
	MaxProcesses   int           // running processes (50)
	DefaultYield   time.Duration // 5 s
	MaxYield       time.Duration // 300 s
	DefaultTimeout time.Duration // 0 = none
	TimeoutGrace   time.Duration // past timeout_ms, SIGTERM to SIGKILL (2 s)
	DenyCommand    *regexp.Regexp
	AllowCommand   *regexp.Regexp
	RedactEnv      *regexp.Regexp
	Blocked        []SideEffect  // sorted
	TTY            bool          // default for exec's tty (true)
	LogDir         string        // where process logs are also written; "" = nowhere
	LogMaxBytes    int64         // a log file is rotated at this size
	PurgeAfter     time.Duration // finished records are forgotten after this; 0 = never
	Toolset        string        // ToolsetDefault, ToolsetShellYeah or ToolsetAll
	MaxLogLines    int           // lines the mcp-shell-yeah tools show of a shell (1000)
	Ask            bool          // YIELDSHELL_ASK: a person may approve an askable refusal (approve.go)
	ResourceLinks  bool          // YIELDSHELL_RESOURCE_LINKS: answers link to logs for every client
	Shell          string        // runs a command that names no shell (DefaultShell); "" = /bin/sh

	// The client's roots (roots.go).
	ExplicitDefaultCwd bool // the operator set YIELDSHELL_DEFAULT_CWD: client roots never change it
	CwdsFromRoots      bool // YIELDSHELL_ALLOWED_CWDS=roots: cwds confined to the client's roots
	rootsApplied       bool // WithRoots made this copy
	defaultFromRoots   bool // DefaultCwd is a client root
	noRoots            string
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
