package session

import (
	"bytes"
	"regexp"
	"strings"
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
	scan lineScan
	list []string
	seen map[string]bool
}

// URLs returns the http(s) URLs the process has printed so far, deduplicated,
// in order (at most 20; output evicted before it was looked at is not).
func (p *Process) URLs() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.out.flush(p.log) // a URL still on the screen counts
	u := &p.urls
	u.scan.needle = urlMark
	u.scan.scan(p.log, false, func(b []byte) bool {
		if len(u.list) >= maxURLs || !bytes.Contains(b, urlMark) {
			return len(u.list) >= maxURLs
		}
		for _, m := range urlRE.FindAll(b, -1) {
			s := trimURL(string(m))
			if len(s) <= len("https://") || u.seen[s] {
				continue
			}
			if u.seen == nil {
				u.seen = make(map[string]bool)
			}
			u.seen[s] = true
			u.list = append(u.list, s)
			if len(u.list) >= maxURLs {
				return true
			}
		}
		return false
	})
	return append([]string(nil), u.list...)
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
