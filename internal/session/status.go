package session

// Status is a process's state as the tools report it.
type Status string

const (
	Running   Status = "running"
	Completed Status = "completed"
	Stopped   Status = "stopped"
	TimedOut  Status = "timed_out"
	Failed    Status = "failed"
)

// Ending says who ended a process.
type Ending string

const (
	EndedByExit     Ending = "exit"     // it exited by itself
	EndedBySignal   Ending = "signal"   // a signal we did not send killed it
	EndedByStop     Ending = "stop"     // the stop tool
	EndedByTimeout  Ending = "timeout"  // its timeout_ms passed
	EndedByShutdown Ending = "shutdown" // the server shut down
	EndedByRestart  Ending = "restart"  // the restart tool
	// EndedByInput: it waited for input under exec's on_input "fail".
	EndedByInput Ending = "input"
)

// Reason says why a wait returned.
type Reason string

const (
	ReasonExited    Reason = "exited"
	ReasonInputWait Reason = "input_wait"
	ReasonYield     Reason = "yield_elapsed"
	ReasonDeadline  Reason = "deadline"
	ReasonCancelled Reason = "cancelled"
	ReasonPattern   Reason = "pattern" // the requested pattern appeared
	ReasonQuiet     Reason = "quiet"   // the output went quiet
	ReasonOutput    Reason = "output"  // output arrived past the position asked for
	// ReasonDetached: the command exited, but processes it started run on.
	ReasonDetached Reason = "detached"
	// ReasonReady: the program serves (it listens, or shows a shortcut
	// hint) and reads its terminal: it is up, and not waiting for input.
	ReasonReady Reason = "ready"
)

// Signal names what showed that a program waits for input, strongest first.
type Signal string

const (
	SignalMark  Signal = "prompt_mark"  // an OSC 133/633 prompt mark
	SignalTTY   Signal = "tty_read"     // blocked reading the terminal
	SignalStdin Signal = "stdin_read"   // blocked reading the stdin pipe
	SignalQuiet Signal = "quiet_prompt" // a prompt-shaped last line, then silence
)
