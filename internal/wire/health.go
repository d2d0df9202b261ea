package wire

import "github.com/yieldshell/yieldshell/internal/roots"

// Health is the server's own state, in ps answers.
type Health struct {
	Name               string   `json:"name"`
	Version            string   `json:"version"`
	UptimeMs           float64  `json:"uptime_ms"`
	Running            int      `json:"running" jsonschema:"processes running now"`
	Total              int      `json:"total" jsonschema:"processes known (running and finished, until purged)"`
	MaxProcesses       int      `json:"max_processes"`
	MaxOutputBytes     int      `json:"max_output_bytes"`
	MaxBufferBytes     int      `json:"max_buffer_bytes"`
	BlockedSideEffects []string `json:"blocked_side_effects"`
	DenyCommandRegex   string   `json:"deny_command_regex,omitempty"`
	AllowCommandRegex  string   `json:"allow_command_regex,omitempty"`
	roots.Report
	PurgeAfterMs int           `json:"purge_after_ms" jsonschema:"finished processes are forgotten this long after they end (0: never)"`
	LogDir       string        `json:"log_dir,omitempty"`
	Toolset      string        `json:"toolset"`
	Sandbox      SandboxHealth `json:"sandbox" jsonschema:"what confines commands and what the kernel enforces"`
}

// SandboxHealth says what is enforced.
type SandboxHealth struct {
	Mode        string   `json:"mode" jsonschema:"YIELDSHELL_SANDBOX: off, read-only, workspace-write or best-effort"`
	Network     string   `json:"network" jsonschema:"YIELDSHELL_SANDBOX_NETWORK of a sandboxed command"`
	LandlockABI int      `json:"landlock_abi" jsonschema:"the kernel's Landlock ABI (0: none)"`
	Seccomp     bool     `json:"seccomp" jsonschema:"seccomp filters with user notification"`
	NotEnforced []string `json:"not_enforced,omitempty" jsonschema:"what this kernel lacks for a sandboxed command"`
	// AllowedWrites grow when a person allows a denial for the session.
	AllowedWrites []string `json:"allowed_writes,omitempty" jsonschema:"paths a person allowed every later sandboxed command of this server to write (YIELDSHELL_ASK)"`
}

// RunHistory is a name's restart history in ps entries.
type RunHistory struct {
	Restarts       int       `json:"restarts,omitempty" jsonschema:"runs started by restart or a crash restart since the name was last started by exec"`
	LastExit       *LastExit `json:"last_exit,omitempty" jsonschema:"how the most recent ended run under this name ended"`
	RestartPending bool      `json:"restart_pending,omitempty" jsonschema:"a crash restart is scheduled"`
	RunsEvicted    int       `json:"runs_evicted,omitempty" jsonschema:"older ended runs of this name forgotten to keep at most 10 runs per name"`
}

// LastExit is how a run ended.
type LastExit struct {
	ProcessID string  `json:"process_id"`
	ExitCode  *int    `json:"exit_code"`
	Signal    *string `json:"signal"`
	EndedBy   string  `json:"ended_by"`
}
