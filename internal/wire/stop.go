package wire

// StopIn is stop's input.
type StopIn struct {
	ProcessID    string `json:"process_id,omitempty" jsonschema:"the process_id from exec, or the process's name; required unless all is true"`
	All          bool   `json:"all,omitempty" jsonschema:"stop every running process (and cancel pending crash restarts), all at once; results lists each outcome"`
	Signal       string `json:"signal,omitempty" jsonschema:"signal to send first (default SIGTERM), e.g. SIGINT, SIGHUP, SIGKILL"`
	ForceAfterMs *int   `json:"force_after_ms,omitempty" jsonschema:"grace period before SIGKILL, in ms (default 3000)"`
}

// StopOut is stop's answer.
type StopOut struct {
	ProcessID string  `json:"process_id" jsonschema:"the process_id stopped"`
	Stopped   bool    `json:"stopped" jsonschema:"the process and its group are gone"`
	Signal    string  `json:"signal,omitempty" jsonschema:"the signal sent first"`
	Forced    bool    `json:"forced,omitempty" jsonschema:"SIGKILL was needed after the grace period"`
	Status    string  `json:"status,omitempty" jsonschema:"the process status after the stop (stopped once it is gone)"`
	ExitCode  *int    `json:"exit_code,omitempty" jsonschema:"exit status once it ended (-N for signal N)"`
	Error     *string `json:"error" jsonschema:"why stopping failed, or null"`
	Name      string  `json:"name,omitempty" jsonschema:"the process's name"`
	// With all: one entry per process that was running.
	Results []StopEntry `json:"results,omitempty" jsonschema:"with all: each process that was running and its outcome"`
}

// StopEntry is one process's outcome in a stop with all.
type StopEntry struct {
	ProcessID string  `json:"process_id" jsonschema:"the process stopped"`
	Name      string  `json:"name,omitempty" jsonschema:"its name"`
	Stopped   bool    `json:"stopped" jsonschema:"it and its group are gone"`
	Forced    bool    `json:"forced,omitempty" jsonschema:"SIGKILL was needed"`
	Status    string  `json:"status" jsonschema:"its status after the stop"`
	ExitCode  *int    `json:"exit_code" jsonschema:"its exit status, or null"`
	Error     *string `json:"error,omitempty" jsonschema:"why stopping it failed"`
}
