package wire

// CleanupIn is cleanup's input.
type CleanupIn struct {
	CompletedOlderThanMs *int `json:"completed_older_than_ms,omitempty" jsonschema:"remove completed processes that ended longer ago than this (default 3600000)"`
	StoppedOlderThanMs   *int `json:"stopped_older_than_ms,omitempty" jsonschema:"remove stopped, timed-out and failed processes that ended longer ago than this (default 3600000)"`
}

// CleanupOut is cleanup's answer.
type CleanupOut struct {
	Removed int `json:"removed" jsonschema:"how many finished processes were forgotten"`
}
