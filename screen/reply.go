package screen

import "strconv"

// queryKind is a kind of terminal query a program can send.
type queryKind uint8

// The queries answered, with the sequence that asks.
const (
	qDA1       queryKind = iota + 1 // CSI c, CSI 0 c: primary device attributes
	qDA2                            // CSI > c: secondary device attributes
	qStatus                         // CSI 5 n: device status
	qCursor                         // CSI 6 n: cursor position (CPR)
	qExtCursor                      // CSI ? 6 n: cursor position with page (DECXCPR)
	qMode                           // CSI ? n $ p, CSI n $ p: mode state (DECRQM)
	qVersion                        // CSI > q, CSI > 0 q: terminal name and version (XTVERSION)
	qColour                         // OSC 10/11/12 ; ? : foreground, background, cursor colour
	qKitty                          // CSI ? u: kitty keyboard protocol flags
)

// query is one query found in a program's output.
type query struct {
	Kind    queryKind
	N       int    // qMode: the mode; qColour: 10, 11 or 12
	Private bool   // qMode: a DEC private mode (CSI ? n $ p)
	ST      string // qColour: the terminator the query used, BEL or ESC \
}

// replyState is the terminal state replies are computed from.
type replyState struct {
	Row, Col      int // cursor, 1-based, relative to the scroll region in origin mode
	AppCursor     bool
	Origin        bool
	Autowrap      bool
	Insert        bool
	CursorVisible bool
	AltScreen     bool
}

// The answers that do not depend on state. The terminal presents itself as
// a VT220 with ANSI colour (DA1 62;22) and gives no xterm patch level in
// DA2, so programs do not turn on xterm-only extensions it does not have.
const (
	replyDA1     = "\x1b[?62;22c"
	replyDA2     = "\x1b[>1;10;0c"
	replyStatus  = "\x1b[0n"
	replyVersion = "\x1bP>|yieldshell\x1b\\"
)

// The palette is the fixed answer to the colour queries: light grey text on
// black, and a cursor in the text colour. Programs use it to pick a dark or
// light theme.
const (
	ColourForeground = "rgb:e5e5/e5e5/e5e5" // OSC 10
	ColourBackground = "rgb:0000/0000/0000" // OSC 11
	ColourCursor     = ColourForeground     // OSC 12
)

// appendReply appends xterm's answer to q in state st, or nothing for a
// query that gets no answer: the kitty keyboard query (CSI ? u) is
// answered, as xterm does, by silence, so a program that sent a DA1 query
// after it (as the protocol asks) sees DA1 first and knows at once that the
// protocol is not supported.
func appendReply(dst []byte, q query, st replyState) []byte {
	switch q.Kind {
	case qDA1:
		return append(dst, replyDA1...)
	case qDA2:
		return append(dst, replyDA2...)
	case qStatus:
		return append(dst, replyStatus...)
	case qCursor, qExtCursor:
		dst = append(dst, "\x1b["...)
		if q.Kind == qExtCursor {
			dst = append(dst, '?')
		}
		dst = strconv.AppendInt(dst, int64(st.Row), 10)
		dst = append(dst, ';')
		dst = strconv.AppendInt(dst, int64(st.Col), 10)
		if q.Kind == qExtCursor {
			dst = append(dst, ";1"...)
		}
		return append(dst, 'R')
	case qMode:
		dst = append(dst, "\x1b["...)
		if q.Private {
			dst = append(dst, '?')
		}
		dst = strconv.AppendInt(dst, int64(q.N), 10)
		dst = append(dst, ';')
		dst = strconv.AppendInt(dst, int64(modeState(q, st)), 10)
		return append(dst, "$y"...)
	case qVersion:
		return append(dst, replyVersion...)
	case qColour:
		var c string
		switch q.N {
		case 10:
			c = ColourForeground
		case 11:
			c = ColourBackground
		case 12:
			c = ColourCursor
		default:
			return dst
		}
		dst = append(dst, "\x1b]"...)
		dst = strconv.AppendInt(dst, int64(q.N), 10)
		dst = append(dst, ';')
		dst = append(dst, c...)
		return append(dst, q.ST...)
	}
	return dst
}

// modeState is DECRQM's answer for the modes the terminal implements: 1
// set, 2 reset; 0 (not recognised) for every other mode.
func modeState(q query, st replyState) int {
	var on bool
	switch {
	case !q.Private && q.N == 4:
		on = st.Insert
	case q.Private && q.N == 1:
		on = st.AppCursor
	case q.Private && q.N == 6:
		on = st.Origin
	case q.Private && q.N == 7:
		on = st.Autowrap
	case q.Private && q.N == 25:
		on = st.CursorVisible
	case q.Private && (q.N == 47 || q.N == 1047 || q.N == 1049):
		on = st.AltScreen
	default:
		return 0
	}
	if on {
		return 1
	}
	return 2
}
