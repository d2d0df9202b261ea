package pty

import (
	"fmt"
	"slices"
	"strings"
	"syscall"
)

// namedKeys are the bytes a terminal sends for each key (xterm, normal
// cursor mode). Names are matched without regard to case.
var namedKeys = map[string]string{
	"enter": "\r", "return": "\r", "tab": "\t", "esc": "\x1b", "escape": "\x1b",
	"space": " ", "backspace": "\x7f", "delete": "\x1b[3~", "insert": "\x1b[2~",
	"up": "\x1b[A", "down": "\x1b[B", "right": "\x1b[C", "left": "\x1b[D",
	"home": "\x1b[H", "end": "\x1b[F", "pageup": "\x1b[5~", "pagedown": "\x1b[6~",
	"f1": "\x1bOP", "f2": "\x1bOQ", "f3": "\x1bOR", "f4": "\x1bOS",
	"f5": "\x1b[15~", "f6": "\x1b[17~", "f7": "\x1b[18~", "f8": "\x1b[19~",
	"f9": "\x1b[20~", "f10": "\x1b[21~", "f11": "\x1b[23~", "f12": "\x1b[24~",
}

// KeyNames lists the key names KeyBytes accepts, for messages and schemas.
func KeyNames() []string {
	names := make([]string, 0, len(namedKeys)+1)
	for k := range namedKeys {
		names = append(names, k)
	}
	slices.Sort(names)
	return append(names, "C-a … C-z (Ctrl), C-@, C-[, C-\\, C-], C-^, C-_")
}

// KeyBytes returns what the terminal sends for key: a name from namedKeys
// or a Ctrl chord written C-x, Ctrl-x, Ctrl+x or ^x.
func KeyBytes(key string, appCursor bool) ([]byte, error) {
	k := strings.ToLower(strings.TrimSpace(key))
	if s, ok := namedKeys[k]; ok {
		if appCursor && len(s) == 3 && s[1] == '[' && strings.IndexByte("ABCDHF", s[2]) >= 0 {
			s = "\x1bO" + s[2:] // what arrow keys send in application mode
		}
		return []byte(s), nil
	}
	for _, prefix := range []string{"c-", "ctrl-", "ctrl+", "^"} {
		rest, ok := strings.CutPrefix(k, prefix)
		if !ok || len(rest) != 1 {
			continue
		}
		c := rest[0]
		switch {
		case c >= 'a' && c <= 'z':
			return []byte{c - 'a' + 1}, nil
		case c >= '@' && c <= '_':
			return []byte{c - '@'}, nil
		case c == '?':
			return []byte{0x7f}, nil
		}
	}
	return nil, fmt.Errorf("unknown key name; use one of: %s", strings.Join(KeyNames(), ", "))
}

// PipeSignal returns the signal key b stands for when there is no terminal
// to turn it into one (pipe mode): what its line discipline would do.
func PipeSignal(b byte) (syscall.Signal, bool) {
	sig, ok := pipeKeys[b]
	return sig, ok
}
