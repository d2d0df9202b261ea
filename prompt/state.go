package prompt

// State is the verdict on one program: whether it waits for input, for
// what, and on what evidence.
type State struct {
	Waiting bool
	Kind    Kind
	Signal  Signal
	Prompt  string // the prompt text: the line the cursor is on
	// Confidence says what a Waiting verdict rests on (Signal's
	// [Signal.Confidence]); "" when not Waiting.
	Confidence Confidence
	// Grammar is what the prompt asks (choices, default, menu items),
	// when Waiting; its Kind is Kind.
	Grammar Grammar
	// Ready: the program reads its terminal but serves (it listens on
	// Ports, or printed a shortcut hint); it is not Waiting.
	Ready bool
	Ports []int
	// Relay, when Signal is SignalRelay: the inner terminal the reader
	// was seen on.
	Relay *Relay
}

// AsksPassword reports whether the program waits for a password by what is
// known of it: the kind, or a prompt line that says so (a terminal that
// echoes makes it a line).
func (s State) AsksPassword() bool {
	return s.Waiting && (s.Kind == KindPassword || maskedPassword(s.Prompt))
}

// TakesSecret reports whether a secret can be typed now: the program asks
// for a password and the kernel shows it blocked reading its input with
// the terminal's echo off (or reading a pipe, which does not echo), or,
// where the reader cannot be looked at, the terminal itself reads lines
// with its echo off (SignalTTYMode: sudo's prompt), or the reader of a
// terminal a relay holds, with neither terminal echoing (SignalRelay: a
// password prompt under script, tmux or screen). A password prompt seen
// only by its text (SignalQuiet: a program polling several descriptors, a
// remote prompt behind ssh, a line editor in raw mode) does not qualify:
// what is typed may be echoed.
func (s State) TakesSecret() bool {
	if !s.Waiting || s.Kind != KindPassword {
		return false
	}
	return s.Signal == SignalTTY || s.Signal == SignalStdin || s.Signal == SignalTTYMode || s.Signal == SignalRelay
}

// Signal names what showed that a program waits for input, strongest first.
type Signal string

const (
	SignalMark  Signal = "prompt_mark" // an OSC 133/633 prompt mark
	SignalTTY   Signal = "tty_read"    // blocked reading the terminal
	SignalStdin Signal = "stdin_read"  // blocked reading the stdin pipe
	// SignalRelay: blocked reading a terminal that a relay of the
	// command's tree holds (script, screen, tmux, expect), judged on that
	// terminal's settings.
	SignalRelay Signal = "relay_read"
	// SignalTTYMode: a password prompt, then silence, with the terminal
	// reading lines with its echo off, where the reader cannot be looked
	// at (another user's program, such as sudo; a system without the
	// probe).
	SignalTTYMode Signal = "tty_mode"
	SignalQuiet   Signal = "quiet_prompt" // a prompt-shaped last line, then silence
)

// Confidence is how much a verdict that a program waits for input rests
// on: an agent may act on a high one at once, and should look at the
// screen before acting on a low one.
type Confidence string

const (
	// ConfidenceHigh: the kernel shows a process of the command's tree
	// blocked reading its input (tty_read, stdin_read), or an integrated
	// shell's prompt mark says so (prompt_mark).
	ConfidenceHigh Confidence = "high"
	// ConfidenceMedium: a password prompt, and the terminal reads lines
	// with its echo off, but the reader cannot be looked at (tty_mode).
	ConfidenceMedium Confidence = "medium"
	// ConfidenceLow: the prompt's text alone (quiet_prompt). The kernel
	// shows at most a wait that includes the input among other
	// descriptors (an event loop, ssh relaying a remote program), or
	// cannot be asked; the program may be waiting for something else.
	ConfidenceLow Confidence = "low"
)

// Confidence is what a verdict seen by s rests on.
func (s Signal) Confidence() Confidence {
	switch s {
	case SignalMark, SignalTTY, SignalStdin, SignalRelay:
		return ConfidenceHigh
	case SignalTTYMode:
		return ConfidenceMedium
	case "":
		return ""
	}
	return ConfidenceLow
}
