package session

import (
	"bytes"
	"regexp"
	"slices"
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

// urlsIn calls f with each URL in line b, trimmed, until f returns false.
func urlsIn(b []byte, f func(string) bool) {
	if !bytes.Contains(b, urlMark) {
		return
	}
	for _, m := range urlRE.FindAll(b, -1) {
		s := trimURL(string(m))
		if len(s) <= len("https://") {
			continue
		}
		if !f(s) {
			return
		}
	}
}

// add records the new URLs of line b; it reports whether the set is full.
func (u *urlSet) add(b []byte) bool {
	urlsIn(b, func(s string) bool {
		if !u.seen[s] {
			if u.seen == nil {
				u.seen = make(map[string]bool)
			}
			u.seen[s] = true
			u.list = append(u.list, s)
		}
		return len(u.list) < maxURLs
	})
	return len(u.list) >= maxURLs
}

// peek returns list with the URLs of line b that are in neither u nor
// list added, without recording them.
func (u *urlSet) peek(list []string, b []byte) []string {
	urlsIn(b, func(s string) bool {
		if !u.seen[s] && !slices.Contains(list, s) {
			list = append(list, s)
		}
		return len(list) < maxURLs
	})
	return list
}
