package wire

import "github.com/yieldshell/yieldshell/internal/mcptool"

// RestartIn is restart's input.
type RestartIn struct {
	ProcessID        string  `json:"process_id" jsonschema:"the process's name, or a process_id"`
	ForceAfterMs     *int    `json:"force_after_ms,omitempty" jsonschema:"grace between SIGTERM and SIGKILL when stopping the old run, in ms (default 3000)"`
	WaitFor          *string `json:"wait_for,omitempty" jsonschema:"regex (Go RE2) that means the new run is up: answer as soon as a line of its output matches (verified true), as exec does"`
	WaitForTimeoutMs *int    `json:"wait_for_timeout_ms,omitempty" jsonschema:"how long to wait for wait_for (default 30000)"`
	MaxOutputBytes   *int    `json:"max_output_bytes,omitempty" jsonschema:"most output bytes to return (capped by YIELDSHELL_MAX_OUTPUT_BYTES)"`
}

// RestartOut is restart's answer: the new run, as read reports it.
type RestartOut struct {
	OutputOut
	Pid           int    `json:"pid,omitempty"`
	RestartedFrom string `json:"restarted_from,omitempty" jsonschema:"the run that was stopped (ended_by restart) or had already ended"`
	Rule          string `json:"rule,omitempty"`
}

// Outcome is what the answer says for counting: the rule that refused the
// restart and the new run's wait for input.
func (o RestartOut) Outcome() mcptool.Outcome {
	oc := o.OutputOut.Outcome()
	oc.Rule = o.Rule
	return oc
}
