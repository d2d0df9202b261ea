package shellyeah

import (
	"fmt"
	"regexp"
	"strings"
)

// What a summary counts, in the order it reports them.
var categories = []struct {
	name string
	re   *regexp.Regexp
}{
	{"errors", regexp.MustCompile(`(?i)\b(err|error|exception|fatal)\b`)},
	{"warnings", regexp.MustCompile(`(?i)\b(warn|warning)\b`)},
	{"URLs", regexp.MustCompile(`https?://\S+`)},
	{"prompts", regexp.MustCompile(`(?i)(\?|\binput\b|\bpassword\b).*[:?]\s*$`)},
}

// summarize says what is notable in lines: how many lines show errors,
// warnings, URLs and prompts, and up to three of them (errors first).
func summarize(lines []string) string {
	var counts []string
	var examples []string
	for _, c := range categories {
		n := 0
		for _, l := range lines {
			if c.re.MatchString(l) {
				n++
				if len(examples) < 3 {
					examples = append(examples, strings.TrimSpace(l))
				}
			}
		}
		if n > 0 {
			counts = append(counts, fmt.Sprintf("%s: %d", c.name, n))
		}
	}
	if len(counts) == 0 {
		return "Nothing notable in these lines (no errors, warnings, URLs or prompts)."
	}
	msg := "In these lines, " + strings.Join(counts, ", ") + "."
	for _, e := range examples {
		msg += "\n- " + e
	}
	return msg
}
