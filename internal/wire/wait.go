package wire

// WaitIn is wait's input.
type WaitIn struct {
	ProcessID      string           `json:"process_id,omitempty" jsonschema:"the process_id from exec, or the process's name (or process_ids instead)"`
	ProcessIDs     []string         `json:"process_ids,omitempty" jsonschema:"wait on several processes (ids or names) instead of process_id: the answer comes when the first of them finishes, waits for input, matches until, or timeout_ms passes; process_id then names that one, yield_reason says why, and waited lists them all"`
	SinceSeqs      map[string]int64 `json:"since_seqs,omitempty" jsonschema:"with process_ids: since_seq per process, keyed by the id or name given in process_ids"`
	TimeoutMs      *int             `json:"timeout_ms,omitempty" jsonschema:"how long to wait (default 30000, at most 55000); the process is never killed"`
	MaxOutputBytes *int             `json:"max_output_bytes,omitempty" jsonschema:"most output bytes to return (capped by YIELDSHELL_MAX_OUTPUT_BYTES)"`
	SinceSeq       *int64           `json:"since_seq,omitempty" jsonschema:"return only output after this position (a previous next_seq); omitted returns the newest output"`
	Until          string           `json:"until,omitempty" jsonschema:"regex (Go RE2): return as soon as a line of output matches it (yield_reason pattern, with matched and matched_line). It looks at output from since_seq on, or, without since_seq, at output printed after this call"`
}
