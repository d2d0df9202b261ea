package policy

import "testing"

// TestWithinWindows: on Windows a root admits its paths whatever their
// case, and never a path on another volume or a sibling sharing its prefix.
func TestWithinWindows(t *testing.T) {
	roots := []string{`C:\Users\Me\Proj`, `\\server\share\work`}
	for _, c := range []struct {
		path string
		want bool
	}{
		{`C:\Users\Me\Proj`, true},
		{`c:\users\me\proj\sub`, true},
		{`C:\USERS\ME\PROJ\Sub\Deeper`, true},
		{`\\SERVER\Share\Work\x`, true},
		{`C:\Users\Me\Projx`, false},
		{`C:\Users\Me`, false},
		{`D:\Users\Me\Proj`, false},
		{`\\server\other\work`, false},
	} {
		if got := within(c.path, roots); got != c.want {
			t.Errorf("within(%q) = %v, want %v", c.path, got, c.want)
		}
	}
}
