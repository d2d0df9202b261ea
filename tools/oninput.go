package tools

import (
	"fmt"
	"time"

	"github.com/yieldshell/yieldshell/internal/session"
)

// exec's on_input values.
const (
	onInputReturn = "return" // answer with the prompt (the default)
	onInputFail   = "fail"   // stop the command the moment it asks
)

// onInputGrace is how long a command stopped for asking gets between
// SIGTERM and SIGKILL: it sits at a prompt, so it ends at once or never.
const onInputGrace = time.Second

// inputFailMessage says why a command under on_input "fail" was stopped.
func inputFailMessage(st session.InputState) string {
	return fmt.Sprintf("The command waited for input (%s: %q) and on_input is \"fail\", so it was stopped. "+
		"Answer the question ahead of time (a flag such as -y or --yes, stdin with close_stdin, or an environment variable), "+
		"or run it with on_input \"return\" and answer with write.", st.Kind, st.Prompt)
}
