package wire

// WriteIn is write's input.
type WriteIn struct {
	ProcessID      string   `json:"process_id" jsonschema:"the process_id from exec"`
	Input          string   `json:"input,omitempty" jsonschema:"text to send, as typed at the keyboard (may be left out when keys, close_stdin or a resize say what to do)"`
	Keys           []string `json:"keys,omitempty" jsonschema:"named keys sent after input, in order: Enter, Tab, Esc, Up, Down, Left, Right, Home, End, PageUp, PageDown, Backspace, Delete, F1-F12, Space, or Ctrl chords C-c, C-d, C-z, C-l, ..."`
	Newline        bool     `json:"newline,omitempty" jsonschema:"press Enter after the input and keys (default false)"`
	CloseStdin     bool     `json:"close_stdin,omitempty" jsonschema:"end the input after writing (EOF; Ctrl-D at the start of a line in PTY mode)"`
	YieldMs        *int     `json:"yield_ms,omitempty" jsonschema:"wait up to this long for the reply: until the program waits for input again, exits, or the time is up; the answer then carries the output produced since the write (default 0: answer at once)"`
	MaxOutputBytes *int     `json:"max_output_bytes,omitempty" jsonschema:"most output bytes to return with yield_ms (capped by YIELDSHELL_MAX_OUTPUT_BYTES)"`
	Cols           *int     `json:"cols,omitempty" jsonschema:"resize the terminal to this many columns (with rows; the program gets SIGWINCH)"`
	Rows           *int     `json:"rows,omitempty" jsonschema:"resize the terminal to this many rows (with cols)"`
	// WaitForPassword holds a secret back until the terminal no longer
	// echoes: typed earlier, it would be echoed into the log.
	WaitForPassword bool `json:"wait_for_password,omitempty" jsonschema:"hold the input until the kernel shows the program reading its terminal with echo off at a password prompt (input_kind password, input_signal tty_read or stdin_read; tty_mode where the reader cannot be looked at but the terminal reads lines with echo off, as for sudo), at most yield_ms (10 s without it); if it asks for something else, shows only a prompt's text (a program polling several inputs, ssh relaying a remote prompt), ends or does not ask in time, nothing is written and the answer says so (ok false). The secret is then redacted from every later view of this process's output, even if the program prints it. Use it for every secret: input typed before the prompt is echoed into the output"`
	// SecretAtTextPrompt: issue 44 item 5, where no kernel can be asked.
	SecretAtTextPrompt bool        `json:"secret_at_text_prompt,omitempty" jsonschema:"with wait_for_password: also type the secret at a password prompt seen by its text only (an interactive ssh to a host where exec's host cannot run yieldshell, a program polling several inputs): nothing then confirms the terminal will not echo it. Only when the user agreed; the answer says so (secret_unverified), and the secret is still redacted from every later view"`
	Steps              []WriteStep `json:"steps,omitempty" jsonschema:"several inputs in one call, typed in order, each waiting for its condition (until, or the program waiting for input again) before the next; the answer has one result per step and stops at the first that failed (failed_step). Replaces input, keys, newline and yield_ms; never for secrets"`
}

// WriteOut is write's answer. Without yield_ms it is only process_id and
// ok, as in mcp-yieldshell 0.4.0; with it, also the reply.
type WriteOut struct {
	ProcessID   string  `json:"process_id" jsonschema:"the process_id written to"`
	OK          bool    `json:"ok" jsonschema:"the input was delivered"`
	Status      string  `json:"status,omitempty" jsonschema:"with yield_ms: running, completed, stopped, timed_out or failed"`
	ExitCode    *int    `json:"exit_code,omitempty" jsonschema:"with yield_ms: exit status once the process ended"`
	Signal      *string `json:"signal,omitempty" jsonschema:"with yield_ms: the signal that ended the process"`
	Stdout      *string `json:"stdout,omitempty" jsonschema:"with yield_ms: the output produced since the write (the echo of the input, then the reply)"`
	Stderr      *string `json:"stderr,omitempty" jsonschema:"with yield_ms: standard error since the write in pipe mode"`
	NextSeq     *int64  `json:"next_seq,omitempty" jsonschema:"with yield_ms: position after the returned output, for read's since_seq"`
	Truncated   bool    `json:"truncated,omitempty" jsonschema:"with yield_ms: some of the reply was left out (see read)"`
	YieldReason string  `json:"yield_reason,omitempty" jsonschema:"with yield_ms: why the write returned: input_wait, ready (a server is up again and reads its terminal only for shortcut keys), exited, yield_elapsed or cancelled"`
	EndedBy     string  `json:"ended_by,omitempty" jsonschema:"with yield_ms: who ended the process, once it ended"`
	CommandOut
	InputOut
	Screen *ScreenOut `json:"screen,omitempty" jsonschema:"with yield_ms: the rendered terminal while a full-screen program runs"`
	Error  string     `json:"error,omitempty" jsonschema:"why the input was not delivered and what to do instead"`
	// SecretUnverified: typed under secret_at_text_prompt.
	SecretUnverified bool `json:"secret_unverified,omitempty" jsonschema:"the secret was typed at a password prompt seen by its text only (secret_at_text_prompt): no kernel showed the terminal's echo off"`
	StepsFields
	OmitFields
}
