package wire

// ManyFields are what a wait on several processes (process_ids) adds to
// its answer: process_id then names the one that woke the wait.
type ManyFields struct {
	Waited []WaitedOut `json:"waited,omitempty" jsonschema:"with process_ids: every process waited on, in the order given, with its status then"`
}

// WaitedOut is one process of a wait on several.
type WaitedOut struct {
	ProcessID       string `json:"process_id"`
	Name            string `json:"name,omitempty"`
	Status          string `json:"status" jsonschema:"running, completed, stopped, timed_out or failed"`
	WaitingForInput bool   `json:"waiting_for_input,omitempty"`
}
