package policy

import (
	"fmt"
	"slices"
	"strings"
)

// securityWords mark a variable name as a security setting: a misspelled
// one would leave the server less confined than the operator meant, so
// the server refuses to start rather than run without it.
var securityWords = []string{"CWD", "SANDBOX", "TOKEN", "ALLOW", "DENY"}

// UnknownVars checks environ (KEY=VALUE entries) for YIELDSHELL_ variables
// that are not in known. Each one gets a warning naming it and the nearest
// known name; err, when one of them looks like a security setting, says
// the server must not start (its value is never repeated: it may be a
// secret).
func UnknownVars(environ, known []string) (warnings []string, err error) {
	var refused []string
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, "YIELDSHELL_") || slices.Contains(known, name) {
			continue
		}
		msg := fmt.Sprintf("%s is not a yieldshell setting and is ignored", name)
		if near := nearest(name, known); near != "" {
			msg += fmt.Sprintf("; did you mean %s?", near)
		} else {
			msg += " (yieldshell --help lists the settings)"
		}
		if security(name) {
			refused = append(refused, msg)
			continue
		}
		warnings = append(warnings, msg)
	}
	if len(refused) > 0 {
		return warnings, fmt.Errorf("not starting: %s. It looks like a security setting, and running without it "+
			"could leave commands less confined than you meant: fix or unset it", strings.Join(refused, "; "))
	}
	return warnings, nil
}

func security(name string) bool {
	rest := strings.TrimPrefix(name, "YIELDSHELL_")
	for _, w := range securityWords {
		if strings.Contains(rest, w) {
			return true
		}
	}
	return false
}

// nearest is the known name closest to name by edit distance, if it is
// close enough to be a slip (a third of the name's length at most).
func nearest(name string, known []string) string {
	best, bestD := "", len(name)/3+1
	for _, k := range known {
		if d := distance(name, k); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

// distance is the Levenshtein distance between a and b.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
