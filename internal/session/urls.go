package session

import (
	"regexp"
	"strings"

	"github.com/yieldshell/yieldshell/internal/outlog"
)

// maxURLs bounds the URLs kept per process.
const maxURLs = 20

// urlMark is in every URL: lines without it are skipped unread.
var urlMark = []byte("://")

var urlRE = regexp.MustCompile(`https?://[^\s<>"'` + "`" + `]+`)

// urlSet collects the http(s) URLs a process printed, in order of first
// appearance, without duplicates. It looks at each complete line of the log
// once (a URL at the end of a line still being written may be unfinished).
type urlSet struct {
	scan outlog.LineScan
	list []string
	seen map[string]bool
}

// trimURL drops punctuation that ends the sentence around a URL rather than
// the URL: "(see http://x/)." gives http://x/. A closing bracket stays when
// the URL opened it.
func trimURL(s string) string {
	for len(s) > 0 {
		c := s[len(s)-1]
		switch {
		case strings.IndexByte(".,;:!?'\"", c) >= 0:
		case c == ')' && strings.Count(s, "(") < strings.Count(s, ")"):
		case c == ']' && strings.Count(s, "[") < strings.Count(s, "]"):
		default:
			return s
		}
		s = s[:len(s)-1]
	}
	return s
}
