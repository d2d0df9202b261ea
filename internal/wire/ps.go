package wire

// PsIn is ps's input.
type PsIn struct {
	IncludeCompleted *bool `json:"include_completed,omitempty" jsonschema:"include finished processes (default true)"`
	Limit            *int  `json:"limit,omitempty" jsonschema:"most entries to return, newest first (default 50)"`
}

// PsEntry summarises one process.
type PsEntry struct {
	ProcessID   string   `json:"process_id" jsonschema:"handle for read, write, wait and stop"`
	Pid         int      `json:"pid" jsonschema:"operating-system process id"`
	Name        string   `json:"name" jsonschema:"the name given at exec, or empty"`
	Command     string   `json:"command" jsonschema:"the command line"`
	Cwd         string   `json:"cwd" jsonschema:"working directory"`
	Status      string   `json:"status" jsonschema:"running, completed, stopped, timed_out or failed"`
	ExitCode    *int     `json:"exit_code" jsonschema:"exit status (-N for signal N), or null while running"`
	Signal      *string  `json:"signal" jsonschema:"signal that ended it, or null"`
	StartedAt   float64  `json:"started_at" jsonschema:"start time, seconds since the Unix epoch"`
	EndedAt     *float64 `json:"ended_at" jsonschema:"end time, seconds since the Unix epoch, or null while running"`
	DurationMs  float64  `json:"duration_ms" jsonschema:"run time so far or in total, in ms"`
	StdoutBytes int64    `json:"stdout_bytes" jsonschema:"bytes of output produced (the terminal output in PTY mode)"`
	StderrBytes int64    `json:"stderr_bytes" jsonschema:"bytes of standard error produced (pipe mode)"`
	TTY         bool     `json:"tty" jsonschema:"runs under a pseudo-terminal"`
	EndedBy     string   `json:"ended_by,omitempty" jsonschema:"who ended it: exit, signal, stop, timeout, shutdown or input (exec on_input \"fail\")"`
	InputOut
	RunHistory
	LongFields
}

// PsOut is ps's answer.
type PsOut struct {
	Processes []PsEntry `json:"processes" jsonschema:"newest first"`
	Server    *Health   `json:"server,omitempty" jsonschema:"the server's own health"`
}
