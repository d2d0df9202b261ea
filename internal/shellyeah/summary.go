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
	{"Errors", regexp.MustCompile(`(?i)\b(err|error|exception|fatal)\b`)},
	{"Warnings", regexp.MustCompile(`(?i)\b(warn|warning)\b`)},
	{"URLs", regexp.MustCompile(`https?://\S+`)},
	{"Prompts", regexp.MustCompile(`(?i)(\?|\binput\b|\bpassword\b).*[:?]\s*$`)},
}

// nothingNotable is the message of a check with nothing to report, word for
// word the peer's: its clients compare it.
const nothingNotable = "No notable events since last check."

// summarize says what is notable in the lines new since the last check: how
// many show errors, warnings, URLs and prompts, and up to three of them
// (errors first). prompt, when the shell waits at one, counts as a prompt
// even if it was printed before the last check, so the message never
// contradicts isProbablyAwaitingInput.
func summarize(lines []string, prompt string) string {
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
		if c.name == "Prompts" && prompt != "" && n == 0 {
			n = 1
			if len(examples) < 3 {
				examples = append(examples, strings.TrimSpace(prompt))
			}
		}
		if n > 0 {
			counts = append(counts, fmt.Sprintf("%s (%d)", c.name, n))
		}
	}
	if len(counts) == 0 {
		return nothingNotable
	}
	msg := "Since last check: " + strings.Join(counts, ", ") + "."
	for _, e := range examples {
		msg += "\n• " + e
	}
	return msg
}
