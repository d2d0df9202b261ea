package screen

import "unicode/utf8"

// The tokenizer is the first half of the Cleaner: it turns bytes into
// tokens (a run of text, a C0 control, an ESC, CSI or OSC sequence, the
// start of another control string) and knows nothing of the screen. The second
// half, dispatch.go, gives each token its meaning. The tokenizer is a state
// machine after the DEC parser at vt100.net/emu/dec_ansi_parser, reduced to
// what a log needs, and it streams: a sequence or a UTF-8 character split
// across Writes is held in its state until the next one completes it.

// Tokenizer states (the vt10x sanitizer in term.go uses them too). Bytes
// inside escape sequences never reach the log.
type pstate uint8

const (
	stGround   pstate = iota
	stEsc             // after ESC
	stEscInter        // ESC + intermediates (charset selects etc.)
	stCSI             // ESC [ ...
	stOSC             // ESC ] ... (BEL | ST)
	stOSCEsc          // ESC inside an OSC: ST or the start of a new sequence
	stStr             // DCS, SOS, PM, APC ... ST
	stStrEsc          // ESC inside such a string
)

const (
	bel = 0x07
	esc = 0x1b
	can = 0x18
	sub = 0x1a
	del = 0x7f
)

// tokKind is the kind of a token.
type tokKind uint8

const (
	tokNone    tokKind = iota // no token: the bytes were part of a sequence
	tokText                   // a run of printable ASCII: token.text
	tokUTF8                   // a run of text with other characters, UTF-8 or not: token.text
	tokRune                   // one character completed across Writes: token.r
	tokControl                // a C0 control or DEL (token.b), also met inside a sequence
	tokEsc                    // ESC [intermediate] final: the tokenizer's escape
	tokCSI                    // CSI: the tokenizer's csi
	tokString                 // the start of an OSC, DCS, SOS, PM or APC string
	tokOSC                    // a complete OSC: the tokenizer's osc; token.b is BEL, '\\' (ST) or ESC (another sequence began)
)

// token is one token. The parameters of an ESC, CSI or OSC sequence stay in
// the tokenizer (escape, csi, osc) and are valid until the next call.
type token struct {
	kind tokKind
	b    byte
	r    rune
	text []byte
}

// csiSeq is a CSI sequence: parameters, private marker, intermediate and
// final byte.
type csiSeq struct {
	params [maxParams]int
	np     int  // index of the last parameter
	marker byte // private marker (< = > ?), 0 if none
	ib     byte // intermediate byte, 0 if none
	final  byte
	bad    bool // malformed (a late marker, two intermediates): no effect
	any    bool // a parameter or marker byte was seen (a marker must come first)
}

// param returns parameter i, or def when it is absent or zero.
func (s *csiSeq) param(i, def int) int {
	if i > s.np || s.params[i] == 0 {
		return def
	}
	return s.params[i]
}

// cmd is the sequence's marker, intermediate and final byte in one number,
// to switch on: cmd(0, 0, 'H') is CUP, cmd('?', '$', 'p') DECRQM.
func (s *csiSeq) cmd() int { return cmd(s.marker, s.ib, s.final) }

func cmd(marker, ib, final byte) int { return int(marker)<<16 | int(ib)<<8 | int(final) }

// escSeq is an ESC sequence other than the introducers of CSI and strings.
type escSeq struct {
	ib    byte // intermediate byte, 0 if none
	final byte
	bad   bool // more than one intermediate: nothing acts on it
}

// tokenizer holds the state carried from one Write to the next.
type tokenizer struct {
	st     pstate
	csi    csiSeq
	escape escSeq
	strLen int           // payload bytes of the current OSC/DCS/... string
	osc    [oscKeep]byte // the start of the current OSC's payload
	// keep has the whole payload of each OSC kept in payload (OSCCap
	// bytes at most), for the Cleaner's OnOSC.
	keep    bool
	payload []byte
	carry   [utf8.UTFMax]byte
	ncarry  int // bytes of an incomplete UTF-8 character held back
}

// oscPayload is the start of the OSC just ended (oscKeep bytes at most) and
// its full length.
func (z *tokenizer) oscPayload() ([]byte, int) {
	return z.osc[:min(z.strLen, oscKeep)], z.strLen
}

// next returns the first token in p[i:] and the index after it, or tokNone
// and len(p) when p ends before another token is complete. The ground
// state, where most bytes are, is read here; the other states have a
// method each.
func (z *tokenizer) next(p []byte, i int) (token, int) {
	if z.ncarry > 0 {
		return z.carried(p, i)
	}
	for i < len(p) {
		var t token
		switch z.st {
		case stGround:
			// A control, or text up to the next control. Text is any byte
			// but C0 and DEL, UTF-8 or not; printable ASCII, the common
			// case, is a token of its own.
			if b := p[i]; b < 0x20 || b == del {
				if b == esc {
					z.st = stEsc
					i++
					continue
				}
				return token{kind: tokControl, b: b}, i + 1
			}
			j := i
			for j < len(p) && p[j]-0x20 < 0x5f {
				j++
			}
			if j < len(p) && p[j] >= 0x80 {
				return z.utf8Text(p, i, j)
			}
			return token{kind: tokText, text: p[i:j]}, j
		case stEsc:
			if p[i] == '[' { // the common case first
				z.startCSI()
				i++
				continue
			}
			t, i = z.inEsc(p, i)
		case stEscInter:
			t, i = z.inEscInter(p, i)
		case stCSI:
			t, i = z.inCSI(p, i)
		case stOSC, stStr:
			t, i = z.inString(p, i)
		case stOSCEsc, stStrEsc:
			t, i = z.inStringEsc(p, i)
		}
		if t.kind != tokNone {
			return t, i
		}
	}
	return token{}, i
}

// utf8Text finishes a run of text p[i:] that is not all printable ASCII,
// from p[j] on, holding back an incomplete UTF-8 character at the end of p.
func (z *tokenizer) utf8Text(p []byte, i, j int) (token, int) {
	for j < len(p) && (p[j]-0x20 < 0x5f || p[j] >= 0x80) {
		j++
	}
	if j == len(p) && p[j-1] >= 0x80 {
		if k := z.holdBack(p, i); k < j {
			if k == i {
				return token{}, j
			}
			return token{kind: tokUTF8, text: p[i:k]}, j
		}
	}
	return token{kind: tokUTF8, text: p[i:j]}, j
}

// holdBack keeps an incomplete UTF-8 character at the end of the text
// p[i:] for the next Write, and returns where the text now ends. Such a
// character starts with the last byte of p that can start one (a byte
// inside a character never can), in the last UTFMax-1 bytes.
func (z *tokenizer) holdBack(p []byte, i int) int {
	for k := len(p) - 1; k >= max(i, len(p)-utf8.UTFMax+1); k-- {
		if p[k] < 0x80 {
			break
		}
		if utf8.RuneStart(p[k]) {
			if !utf8.FullRune(p[k:]) {
				z.ncarry = copy(z.carry[:], p[k:])
				return k
			}
			break
		}
	}
	return len(p)
}

// carried completes (or rejects) the UTF-8 character held back at the end
// of the previous Write, exactly as if the two Writes had been one: each
// call returns one character, U+FFFD for each held byte that cannot start
// one.
func (z *tokenizer) carried(p []byte, i int) (token, int) {
	var tmp [2 * utf8.UTFMax]byte
	n := copy(tmp[:], z.carry[:z.ncarry])
	m := copy(tmp[n:], p[i:])
	buf := tmp[:n+m]
	if !utf8.FullRune(buf) { // still incomplete, so p was all used
		z.ncarry = copy(z.carry[:], buf)
		return token{}, len(p)
	}
	r, size := utf8.DecodeRune(buf)
	if size > n {
		z.ncarry = 0
		return token{kind: tokRune, r: r}, i + size - n
	}
	// Invalid: the first held byte is an error; look at the rest again.
	copy(z.carry[:], z.carry[1:z.ncarry])
	z.ncarry--
	return token{kind: tokRune, r: utf8.RuneError}, i
}

// inEsc reads the byte after ESC.
func (z *tokenizer) inEsc(p []byte, i int) (token, int) {
	switch b := p[i]; {
	case b == '[':
		z.startCSI()
	case b == ']':
		z.st, z.strLen, z.payload = stOSC, 0, z.payload[:0]
		return token{kind: tokString}, i + 1
	case b == 'P' || b == 'X' || b == '^' || b == '_':
		z.st, z.strLen = stStr, 0
		return token{kind: tokString}, i + 1
	case b >= 0x20 && b <= 0x2f:
		z.st, z.escape = stEscInter, escSeq{ib: b}
	case b >= 0x30 && b <= 0x7e:
		z.st, z.escape = stGround, escSeq{final: b}
		return token{kind: tokEsc}, i + 1
	case b == esc:
		// ESC ESC: the second one starts the sequence.
	default:
		return z.stray(p, i)
	}
	return token{}, i + 1
}

// startCSI enters a CSI sequence.
func (z *tokenizer) startCSI() {
	z.st = stCSI
	z.csi.np, z.csi.params[0], z.csi.marker, z.csi.ib, z.csi.bad, z.csi.any = 0, 0, 0, 0, false, false
}

// inEscInter reads a byte after ESC and an intermediate.
func (z *tokenizer) inEscInter(p []byte, i int) (token, int) {
	switch b := p[i]; {
	case b >= 0x20 && b <= 0x2f:
		z.escape.bad = true // two intermediates: nothing we act on
	case b >= 0x30 && b <= 0x7e:
		z.st, z.escape.final = stGround, b
		return token{kind: tokEsc}, i + 1
	case b == esc:
		z.st = stEsc
	default:
		return z.stray(p, i)
	}
	return token{}, i + 1
}

// inCSI reads the bytes of a CSI sequence after ESC [, up to its final
// byte or the end of p.
func (z *tokenizer) inCSI(p []byte, i int) (token, int) {
	s := &z.csi
	for {
		if i = s.readParams(p, i); i == len(p) {
			return token{}, i
		}
		switch b := p[i]; {
		case b == ':':
			s.nextParam()
			s.any = true
		case b >= '<' && b <= '?':
			if s.any || s.ib != 0 {
				s.bad = true // a marker after parameters: malformed
			} else {
				s.marker, s.any = b, true
			}
		case b >= 0x20 && b <= 0x2f:
			if s.ib != 0 {
				s.bad = true // no sequence we act on has two
			}
			s.ib = b
		case b >= 0x40 && b <= 0x7e:
			z.st, s.final = stGround, b
			return token{kind: tokCSI}, i + 1
		case b == esc:
			z.st = stEsc
			return token{}, i + 1
		default:
			return z.stray(p, i)
		}
		i++
	}
}

// readParams reads the digits and semicolons from p[i] on, and returns the
// index of the first other byte. Parameters usually come in bulk (SGR), so
// this is a tight loop, with the current number in a register.
func (s *csiSeq) readParams(p []byte, i int) int {
	if i == len(p) || p[i]-'0' >= 10 && p[i] != ';' {
		return i
	}
	s.any = true
	v := s.params[s.np]
	for ; i < len(p); i++ {
		switch b := p[i]; {
		case b-'0' < 10:
			v = min(v*10+int(b-'0'), maxParam)
		case b == ';':
			s.params[s.np] = v
			s.nextParam()
			v = s.params[s.np]
		default:
			s.params[s.np] = v
			return i
		}
	}
	s.params[s.np] = v
	return i
}

// nextParam starts the next parameter; past maxParams the last one goes on.
func (s *csiSeq) nextParam() {
	if s.np < maxParams-1 {
		s.np++
		s.params[s.np] = 0
	}
}

// stray handles a byte that is neither parameter nor final inside an
// ESC or CSI sequence: C0 controls act (as on a VT100), CAN and SUB abort
// the sequence, DEL is ignored, and a byte >= 0x80 abandons the sequence
// and is read again as text.
func (z *tokenizer) stray(p []byte, i int) (token, int) {
	switch b := p[i]; {
	case b == can || b == sub:
		z.st = stGround
	case b == del:
	case b < 0x20:
		return token{kind: tokControl, b: b}, i + 1
	default:
		z.st = stGround
		return token{}, i
	}
	return token{}, i + 1
}

// inString swallows the payload of an OSC, DCS, SOS, PM or APC string up
// to its terminator, in bulk, keeping the start of an OSC to recognise
// colour queries. After OSCCap (StringCap) bytes it gives up on the string:
// the rest is text again.
func (z *tokenizer) inString(p []byte, i int) (token, int) {
	osc := z.st == stOSC
	limit := StringCap
	if osc {
		limit = OSCCap
	}
	ends := func(q byte) bool { return q == esc || q == can || q == sub || q == bel && osc }
	j := i
	for j < len(p) && z.strLen < limit && !ends(p[j]) {
		if z.strLen < oscKeep {
			z.osc[z.strLen] = p[j]
		}
		j++
		z.strLen++
	}
	if osc && z.keep {
		z.payload = append(z.payload, p[i:j]...)
	}
	if j == len(p) {
		return token{}, j
	}
	switch q := p[j]; {
	case !ends(q): // at the cap
		z.st = stGround
		return token{}, j
	case q == esc:
		z.st = stStrEsc
		if osc {
			z.st = stOSCEsc
		}
	case q == bel:
		z.st = stGround
		return token{kind: tokOSC, b: bel}, j + 1
	default: // CAN and SUB abort any string
		z.st = stGround
	}
	return token{}, j + 1
}

// inStringEsc reads the byte after an ESC inside a string: ST ends it; any
// other byte ends it too and starts a new sequence, as in xterm. An OSC
// ended that way is a token too, with token.b ESC: nothing answers it,
// but OnOSC sees it, as a terminal would.
func (z *tokenizer) inStringEsc(p []byte, i int) (token, int) {
	osc := z.st == stOSCEsc
	if p[i] != '\\' {
		z.st = stEsc
		if osc {
			return token{kind: tokOSC, b: esc}, i
		}
		return token{}, i
	}
	z.st = stGround
	if osc {
		return token{kind: tokOSC, b: '\\'}, i + 1
	}
	return token{}, i + 1
}
