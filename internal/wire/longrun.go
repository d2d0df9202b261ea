package wire

// Extra answer fields for long-running processes, shared by exec, read,
// wait and ps.
type LongFields struct {
	URLs        []string `json:"urls,omitempty" jsonschema:"http(s) URLs the process printed, in order, without duplicates"`
	LogPath     string   `json:"log_path,omitempty" jsonschema:"file the process's clean log is appended to (YIELDSHELL_LOG_DIR)"`
	TailCommand string   `json:"tail_command,omitempty" jsonschema:"a shell command that follows log_path as it grows"`
	// Sandbox is here because every answer about a process carries it.
	Sandbox *SandboxOut `json:"sandbox,omitempty" jsonschema:"the kernel sandbox the process runs in and what it was denied (present when confined)"`
}

// PatternFields report a wait for a pattern (exec wait_for, wait until).
type PatternFields struct {
	Verified    *bool  `json:"verified,omitempty" jsonschema:"with wait_for: whether the pattern appeared"`
	Matched     string `json:"matched,omitempty" jsonschema:"the text the pattern matched"`
	MatchedLine string `json:"matched_line,omitempty" jsonschema:"the whole output line it matched in"`
}
