package prompt

import (
	"regexp"
	"strings"
)

// hintLines is how many lines above the cursor servingHint looks at.
const hintLines = 6

// shortcutHint matches the line a server or a watcher prints about the
// keys it reads while it runs: vite's "press h + enter to show help",
// jest's "Press w to show more", "Press Ctrl+C to quit". A key that answers
// a question ("press Enter to continue", "press any key") is not one.
var shortcutHint = regexp.MustCompile(`(?i)\bpress\s+(?:[a-z]|ctrl[+-]c|\^c|[a-z]\s*\+\s*enter)\b[^.]{0,40}?\bto\s+(?:show|quit|exit|stop|restart|reload|open|clear|toggle|see|view|re-?run|run|filter|display|enter|trigger)\b`)

// servingHint reports whether a program shows a shortcut hint above an empty
// prompt line: it serves (a dev server, a test watcher) and reads its
// terminal only for those keys; it does not wait for an answer. above are
// the lines above the cursor's, oldest first; line is the cursor's.
func servingHint(above []string, line string) bool {
	if strings.TrimSpace(line) != "" {
		return false
	}
	for i := len(above) - 1; i >= 0 && i >= len(above)-hintLines; i-- {
		if shortcutHint.MatchString(above[i]) {
			return true
		}
	}
	return false
}

// hintTail is how much of the output above the cursor a serving check
// reads for a shortcut hint.
const hintTail = 2 << 10

// describe completes what the evidence found with what the program asks
// (its prompt's grammar), and tells serving from waiting: a program that
// reads its terminal while its tree listens on a socket, or under a
// shortcut hint ("press h + enter to show help"), is ready, not waiting,
// unless its prompt is a question (a confirm, a menu) or a REPL's own
// prompt ("debug> ": node inspect's debuggee listens on its inspector
// port). pr is the kernel's probe the state rests on.
func describe(pr Probe, o Observation, e Evidence, st State) State {
	if st.Waiting && st.Signal == SignalMark {
		return st // an integrated shell at its prompt
	}
	// A wait on the input with a timer counts here: a server's event
	// loop has timers, and what is asked is whether it serves.
	reads := pr.Activity == Reading || pr.Activity == Polling || pr.Timed
	if !st.Waiting && (!reads || o.Quiet < QuietPeriod) {
		return st
	}
	var g Grammar
	if st.Waiting {
		g = grammarOf(o, e, st)
		if asksEvenServing(g.Kind) || g.Kind == KindLine && isNamedPrompt(st.Prompt) {
			return withGrammar(st, g)
		}
	}
	if reads || st.Signal == SignalQuiet {
		if ports, ok := serving(e); ok {
			if o.Quiet < servingQuiet {
				return State{} // too soon to tell from a REPL about to prompt
			}
			return State{Ready: true, Ports: ports}
		}
	}
	if st.Waiting {
		st = withGrammar(st, g)
	}
	return st
}

// asksEvenServing reports whether a kind of prompt is a question even from
// a server.
func asksEvenServing(k Kind) bool {
	switch k {
	case KindConfirm, KindChoice, KindPassword, KindContinuation:
		return true
	}
	return false
}

func withGrammar(st State, g Grammar) State {
	st.Kind, st.Grammar = g.Kind, g
	return st
}

// serving reports whether the program serves: its tree listens on TCP
// ports (which it returns), or it printed a shortcut hint above an empty
// prompt line.
func serving(e Evidence) ([]int, bool) {
	if ports := e.Listening(); len(ports) > 0 {
		return ports, true
	}
	lines := strings.Split(e.Tail(hintTail), "\n")
	return nil, servingHint(lines[:len(lines)-1], lines[len(lines)-1])
}

// grammarOf reads what a waiting program asks: its prompt line, the
// rendered screen, and under a terminal its mode and the foreground's
// program names.
func grammarOf(o Observation, e Evidence, st State) Grammar {
	c := Context{Kind: st.Kind, Line: st.Prompt, Screen: e.Screen()}
	if o.TTY {
		if _, canonical, err := modes(true, e, st.Relay); err == nil {
			c.Raw = !canonical
		}
		c.Programs = e.Programs(st.Relay)
	}
	return Classify(c)
}
