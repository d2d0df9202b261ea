package wire

// AskHumanIn is ask_human's input.
type AskHumanIn struct {
	ProcessID string `json:"process_id" jsonschema:"the process_id from exec, or the process's name"`
	Message   string `json:"message" jsonschema:"what you tell the person: which program asks, why, and what to type or do"`
	Secret    bool   `json:"secret,omitempty" jsonschema:"true: the program waits for a password now (input_kind password) and the person types it on the page; it goes to the program only and never reaches you. false (default): the person gets the whole terminal (live screen and keyboard) until they press Done"`
	TimeoutMs *int   `json:"timeout_ms,omitempty" jsonschema:"how long the page lives and the call may wait for the person (default 600000 = 10 minutes, at most 86400000)"`
}

// AskHumanOut is ask_human's answer: the link to show, or how the person
// finished with the program's reply, as write with yield_ms gives it.
type AskHumanOut struct {
	ProcessID   string  `json:"process_id" jsonschema:"the process asked about"`
	URL         string  `json:"url,omitempty" jsonschema:"when your client cannot show pages itself: the one-time page for the user. Show them this link (do not open it yourself), then wait on the process"`
	Message     string  `json:"message,omitempty" jsonschema:"what to do next"`
	YieldReason string  `json:"yield_reason,omitempty" jsonschema:"how the person finished: human_done (typed the secret, or handed the terminal back), human_declined or human_left (the page expired or was closed). The program ending while the person holds its terminal is human_done"`
	Status      string  `json:"status,omitempty" jsonschema:"once the person finished: running, completed, stopped, timed_out or failed"`
	ExitCode    *int    `json:"exit_code,omitempty" jsonschema:"exit status once the process ended"`
	Signal      *string `json:"signal,omitempty" jsonschema:"the signal that ended the process"`
	Stdout      *string `json:"stdout,omitempty" jsonschema:"once the person finished: the output since the page was made (never the secret)"`
	Stderr      *string `json:"stderr,omitempty" jsonschema:"standard error since the page was made, in pipe mode"`
	NextSeq     *int64  `json:"next_seq,omitempty" jsonschema:"position after the returned output, for read's since_seq"`
	Truncated   bool    `json:"truncated,omitempty" jsonschema:"some of the output was left out (see read)"`
	EndedBy     string  `json:"ended_by,omitempty" jsonschema:"who ended the process, once it ended"`
	InputOut
	Screen *ScreenOut `json:"screen,omitempty" jsonschema:"the rendered terminal while a full-screen program runs"`
	Error  string     `json:"error,omitempty" jsonschema:"why no page was made, or why the call ended without the person's answer"`
}
