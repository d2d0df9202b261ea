package human

import (
	"regexp"
	"testing"
)

// withoutSourceMaps drops exactly the lines a regular expression would:
// the comment at a line's start, through the line's end.
func TestWithoutSourceMaps(t *testing.T) {
	re := regexp.MustCompile(`(?m)^//# sourceMappingURL=.*\n?`)
	for _, js := range []string{
		"", "a()", "a()\n//# sourceMappingURL=x.map", "a()\n//# sourceMappingURL=x.map\n",
		"//# sourceMappingURL=x.map\nb()", "s='//# sourceMappingURL=not'\nb()\n//# sourceMappingURL=y\n",
		xtermJS, xtermFitJS,
	} {
		want := re.ReplaceAllString(js, "")
		if got := withoutSourceMaps(js); got != want {
			t.Errorf("withoutSourceMaps(%.60q...) differs from the regexp (len %d, want %d)", js, len(got), len(want))
		}
	}
}
