package prompt

import (
	"regexp"
	"strings"
)

// The regular expressions looksLikePrompt was made of before it read the
// cursor's row (issue 32 cause 1), kept as the benchmark's baseline.
var (
	basePromptEnd   = regexp.MustCompile(`(?:[$#%>?:]|\(y/n\)|\(yes/no\)|\[[yYnN]/[yYnN]\]|\((?:\[y\]|y) or (?:\[n\]|n)\)|\([A-Za-z][\w-]{0,15}\))[ \t]?$`)
	baseFalseFriend = regexp.MustCompile(`(?i)^\W*(?:compiling|collecting|downloading|building|installing|fetching|resolving|loading|running|waiting|checking|linking|processing|generating|updating|uploading|extracting|unpacking|copying|cloning|analy[sz]ing|starting|preparing|bundling|transforming|testing|scanning|indexing|reading|writing|sending|receiving)\b|\.\.\.?[ \t]*$|\d%[ \t]?$`)
	baseKnownPrompt = regexp.MustCompile(`^(?:\.\.\. |>>> |> |\$ |# |% )$`)
)

// baselineLooksLikePrompt is looksLikePrompt as it was: a list of line
// shapes.
func baselineLooksLikePrompt(line string) (Kind, bool) {
	if baseKnownPrompt.MatchString(line) {
		return KindLine, true
	}
	t := strings.TrimLeft(line, " \t")
	if t == "" || len(t) > maxPromptLen {
		return "", false
	}
	if passwordLine.MatchString(t) {
		return KindPassword, true
	}
	if !basePromptEnd.MatchString(t) || baseFalseFriend.MatchString(t) {
		return "", false
	}
	return KindLine, true
}
