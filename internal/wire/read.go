package wire

// ReadIn is read's input.
type ReadIn struct {
	ProcessID      string `json:"process_id" jsonschema:"the process_id from exec, or the process's name"`
	SinceSeq       *int64 `json:"since_seq,omitempty" jsonschema:"return only output after this position: pass the next_seq of the previous answer; omitted returns the newest output"`
	MaxOutputBytes *int   `json:"max_output_bytes,omitempty" jsonschema:"most output bytes to return (capped by YIELDSHELL_MAX_OUTPUT_BYTES)"`
	Streams        string `json:"streams,omitempty" jsonschema:"both (default), stdout or stderr"`
	View           string `json:"view,omitempty" jsonschema:"log (default): the output text; screen: the terminal as it looks now (rows, cursor, size) instead"`
	Encoding       string `json:"encoding,omitempty" jsonschema:"text (default): output as text, binary output left out (binary: true); base64: the exact bytes the log stores from since_seq (default 0) on, binary output included, base64-encoded in stdout and stderr, at most max_output_bytes of encoded text; page on with next_seq"`
}

// OutputOut is the shape of read and wait answers.
type OutputOut struct {
	ProcessID   string     `json:"process_id" jsonschema:"the process_id asked about"`
	Status      string     `json:"status,omitempty" jsonschema:"running, completed, stopped, timed_out or failed"`
	ExitCode    *int       `json:"exit_code" jsonschema:"exit status once the process ended (-N when signal N ended it); null while running"`
	Signal      *string    `json:"signal" jsonschema:"name of the signal that ended the process, or null"`
	NextSeq     *int64     `json:"next_seq,omitempty" jsonschema:"position after the returned output: the since_seq of the next read"`
	StartSeq    *int64     `json:"start_seq,omitempty" jsonschema:"position of the first returned byte"`
	Truncated   bool       `json:"truncated" jsonschema:"evicted or capped"`
	Evicted     bool       `json:"evicted,omitempty" jsonschema:"output asked for is no longer retained; the answer starts at the oldest retained byte"`
	Capped      bool       `json:"capped,omitempty" jsonschema:"max_output_bytes cut the answer; reading on from next_seq loses nothing"`
	Stdout      *string    `json:"stdout,omitempty" jsonschema:"output text (in PTY mode everything the terminal showed, cleaned)"`
	Stderr      *string    `json:"stderr,omitempty" jsonschema:"standard error in pipe mode; empty in PTY mode"`
	EndedBy     string     `json:"ended_by,omitempty" jsonschema:"who ended the process: exit, signal, stop, timeout, shutdown or input (exec on_input \"fail\")"`
	YieldReason string     `json:"yield_reason,omitempty" jsonschema:"why wait returned: exited, input_wait (the program waits for input), deadline or cancelled"`
	Screen      *ScreenOut `json:"screen,omitempty" jsonschema:"the rendered terminal: with view \"screen\", and while a full-screen program runs"`
	InputOut
	CommandOut
	Error string   `json:"error,omitempty" jsonschema:"why the call failed and what to do instead"`
	Notes []string `json:"notes,omitempty" jsonschema:"remarks about the end of the process or its terminal (replies to its queries that were dropped)"`
	Name  string   `json:"name,omitempty" jsonschema:"the process's name"`
	// Encoding says that stdout and stderr are base64 (read's encoding).
	Encoding string `json:"encoding,omitempty" jsonschema:"base64 when stdout and stderr hold the base64 of the stored bytes (read with encoding \"base64\")"`
	PatternFields
	LongFields
	ManyFields
	OmitFields
}
