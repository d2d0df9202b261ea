package wire

// WriteStep is one step of a write with steps: what to type, then what to
// wait for before the next step is typed.
type WriteStep struct {
	Input     string   `json:"input,omitempty" jsonschema:"text to type"`
	Keys      []string `json:"keys,omitempty" jsonschema:"named keys sent after input (as write's keys)"`
	Newline   bool     `json:"newline,omitempty" jsonschema:"press Enter after the input and keys"`
	Until     string   `json:"until,omitempty" jsonschema:"regex (Go RE2): the step succeeds when a line of the output printed since it was typed matches"`
	InputWait *bool    `json:"input_wait,omitempty" jsonschema:"without until: the step succeeds when the program waits for input again (default true); false: it succeeds once typed"`
	TimeoutMs *int     `json:"timeout_ms,omitempty" jsonschema:"how long the step may wait for its condition (default 10000, capped like yield_ms)"`
}

// StepOut is the result of one step.
type StepOut struct {
	OK          bool     `json:"ok" jsonschema:"the step's condition held"`
	Stdout      string   `json:"stdout" jsonschema:"the output since the step was typed (its echo, then the reply)"`
	Stderr      string   `json:"stderr,omitempty" jsonschema:"standard error since the step, in pipe mode"`
	NextSeq     int64    `json:"next_seq" jsonschema:"position after the step's output"`
	YieldReason string   `json:"yield_reason" jsonschema:"why the step's wait ended: input_wait, pattern, exited, typed (no condition), deadline, cancelled or refused"`
	Matched     string   `json:"matched,omitempty" jsonschema:"with until: the text it matched"`
	Error       string   `json:"error,omitempty" jsonschema:"why the step failed"`
	Omitted     *Omitted `json:"omitted,omitempty" jsonschema:"output left out of stdout: read since_seq from_seq returns it"`
	Binary      bool     `json:"binary,omitempty" jsonschema:"the step's output is binary and not shown"`
}

// StepsFields are what a write with steps adds to write's answer.
type StepsFields struct {
	Steps      []StepOut `json:"steps,omitempty" jsonschema:"with steps: one result per step run, in order; it stops after the first that failed"`
	FailedStep *int      `json:"failed_step,omitempty" jsonschema:"with steps: the 0-based index of the step whose condition failed (the steps after it were not typed)"`
}
