// The shell-yeah tools quote a command for the shell it runs in: cmd.exe
// here, sh elsewhere (quote_other.go).

package shellyeah

import (
	"regexp"
	"strings"
)

// plainWord needs no quotes for cmd.exe: none of its operators (& | < > ^
// ( )), no blanks, no quotes. A % still expands a variable: cmd.exe /c has
// no way to quote it.
var plainWord = regexp.MustCompile(`^[A-Za-z0-9_./:=@%+,\\-]+$`)

// shellQuote makes s one argument for a program started by cmd.exe: in
// double quotes, where cmd.exe's operators are plain text, escaped by the
// rules the program's C runtime (CommandLineToArgvW) splits them by.
func shellQuote(s string) string {
	if plainWord.MatchString(s) {
		return s
	}
	var b strings.Builder
	b.WriteByte('"')
	slashes := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\':
			slashes++
			continue
		case '"':
			b.WriteString(strings.Repeat(`\`, 2*slashes+1))
		default:
			b.WriteString(strings.Repeat(`\`, slashes))
		}
		slashes = 0
		b.WriteByte(s[i])
	}
	b.WriteString(strings.Repeat(`\`, 2*slashes))
	b.WriteByte('"')
	return b.String()
}
