package tools

import "github.com/yieldshell/yieldshell/internal/policy"

// Instructions is what initialize tells the model about the tools of a
// toolset (policy.Toolset*): only tools that toolset lists.
func Instructions(toolset string) string {
	switch toolset {
	case policy.ToolsetShellYeah:
		return shellYeahInstructions
	case policy.ToolsetAll:
		return defaultInstructions + "\n" + allInstructions
	}
	return defaultInstructions
}

const defaultInstructions = `yieldshell runs shell commands for you, each under its own terminal.
- exec runs a command. Declare its side_effects honestly (["NONE"] for read-only). A fast command answers "completed" with its output; a slow one answers "backgrounded" with a process_id after yield_ms.
- exec and wait answer at once when the program waits for input (waiting_for_input, input_kind, prompt). Answer with write (newline: true presses Enter; keys for Tab, arrows, C-c; yield_ms returns the reply in the same call). Drive REPLs, debuggers and an interactive bash, zsh or fish this way; in those shells each command written with yield_ms answers when it finishes, with command_exit_code.
- For a backgrounded process: read with since_seq set to the last next_seq to get only new output; wait to block until it finishes or asks for input (at most 55 s per call); stop to end it and its children.
- Output is the terminal's text, cleaned of escape codes. For full-screen programs (vim, less, top) answers carry the rendered screen; read with view "screen" shows it any time.
- ps lists processes; cleanup forgets finished ones.
- For servers and watchers: exec with a name (a handle every tool accepts in place of process_id) and wait_for (a regex such as "Local:.*http") to answer once it is up; restart restarts it; stop with all: true stops everything.
- A password the user did not give you, or a prompt only they can answer: ask_human gives them a one-time page (secret: true types a password into the program without it ever reaching you; secret: false hands them the terminal until they press Done). Never ask the user to paste a password into the chat.`

const shellYeahInstructions = `yieldshell runs long-lived commands for you in the background, each under its own terminal, with the tools of mcp-shell-yeah.
- start_shell starts a command (dev server, watcher, test runner) under a label, a handle every tool takes, and answers with its first output once it goes quiet; start_shell_with_verification answers once a regex such as "Local:.*http" appears, and can start a crashing shell again.
- check_shell gives a shell's status, exit code, detected URLs and the log lines since the previous check; get_all_loglines gives every retained line; list_shells lists every shell; wait_for_shell blocks until a shell is running, stopped or crashed.
- When isProbablyAwaitingInput is true the shell waits at a prompt: answer with send_input, which types a line and answers with the reaction.
- stop_shell ends a shell and everything it started; restart_shell starts it again with the same options; stop_all_shells ends every shell; health_check describes the server.
- Log lines are the terminal's text, cleaned of escape codes.
- A password the user did not give you, or a prompt only they can answer: ask_human gives them a one-time page for that shell (secret: true for a password, which never reaches you). Never ask the user to paste a password into the chat.`

const allInstructions = `The mcp-shell-yeah tools are here too, on the same processes: start_shell, start_shell_with_verification, check_shell, send_input, wait_for_shell, get_all_loglines, list_shells, stop_shell, restart_shell, stop_all_shells, health_check (ask_human takes process_id, a label included). A shell's label is a name the tools above accept in place of process_id.`
