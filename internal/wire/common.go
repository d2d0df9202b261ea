package wire

import "github.com/yieldshell/yieldshell/internal/mcptool"

// ScreenOut is the rendered terminal of a PTY-mode process.
type ScreenOut struct {
	Lines         []string `json:"lines" jsonschema:"the visible rows, trailing blanks and empty rows at the bottom left out"`
	CursorRow     int      `json:"cursor_row" jsonschema:"0-based"`
	CursorCol     int      `json:"cursor_col" jsonschema:"0-based"`
	Cols          int      `json:"cols" jsonschema:"terminal width in columns"`
	Rows          int      `json:"rows" jsonschema:"terminal height in rows"`
	AltScreen     bool     `json:"alt_screen" jsonschema:"a full-screen program (vim, less, top) is running"`
	CursorVisible bool     `json:"cursor_visible" jsonschema:"the program shows the cursor"`
	Degraded      bool     `json:"degraded,omitempty" jsonschema:"the emulator had to be reset; earlier screen content is lost"`
}

// InputOut is the input-wait part of an answer about a running process.
type InputOut struct {
	WaitingForInput *bool  `json:"waiting_for_input,omitempty" jsonschema:"the program is waiting for input: answer it with write"`
	InputKind       string `json:"input_kind,omitempty" jsonschema:"what it waits for: line, password (a secret is asked; with input_signal tty_read, relay_read or stdin_read the kernel shows the read with the terminal's echo off, and write's wait_for_password types it; with quiet_prompt only the prompt's text says so, and wait_for_password refuses), command (a shell prompt), confirm (type one of choices; Enter alone takes default), choice (a menu: items, selected; or type one of choices when numbered), continuation (the rest of an unfinished statement), pager (Space pages, q quits) or editor (a full-screen editor)"`
	InputSignal     string `json:"input_signal,omitempty" jsonschema:"how that was seen: prompt_mark (shell integration), tty_read or stdin_read (the kernel: a process of the command's tree blocked reading its input, in the foreground or not: a dialog a daemon drew), relay_read (the kernel, through a relay: a program the command runs under a terminal of its own, such as script, screen, tmux, expect or unbuffer, blocked reading that inner terminal, judged on its settings; what is written reaches it through the relay), tty_mode (a password prompt on a terminal reading lines with echo off, where the reader cannot be looked at: sudo), quiet_prompt (a prompt-shaped last line, then 150 ms of silence)"`
	InputConfidence string `json:"input_confidence,omitempty" jsonschema:"what that rests on: high (the kernel shows the command's tree blocked reading its input, directly or through a relay, or a shell's prompt mark), medium (tty_mode: the terminal reads lines with echo off, the reader unseen), low (quiet_prompt: the prompt's text alone; the program may wait for something else, such as a timer or a remote program behind ssh: look at the output before answering)"`
	Prompt          string `json:"prompt,omitempty" jsonschema:"the prompt text: the line the cursor is on"`
	mcptool.Asked
}

// CommandOut is what an integrated shell reports of the commands it
// finished since the last write.
type CommandOut struct {
	CommandExitCode  *int  `json:"command_exit_code,omitempty" jsonschema:"in an interactive shell: the exit code of the last command that finished since the last write"`
	CommandExitCodes []int `json:"command_exit_codes,omitempty" jsonschema:"in an interactive shell, when several commands finished since the last write (several lines written at once, or typed while a command ran): each one's exit code, in order"`
}

// Outcome is what the answer says for counting: how a wait for input was
// seen. Every answer that embeds InputOut says it.
func (i InputOut) Outcome() mcptool.Outcome {
	return mcptool.Outcome{WaitingForInput: i.WaitingForInput != nil && *i.WaitingForInput, InputSignal: i.InputSignal}
}
