package roots

import (
	"runtime"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Unix paths")
	}
	tests := []struct {
		uri, want string // want "" = refused
		why       string // in the refusal
	}{
		{"file:///home/me/proj", "/home/me/proj", ""},
		{"file:///home/me/proj/", "/home/me/proj", ""},
		{"FILE:///home/me", "/home/me", ""},
		{"file://localhost/home/me", "/home/me", ""},
		{"file://LocalHost/home/me", "/home/me", ""},
		{"file:///home/me/my%20project", "/home/me/my project", ""},
		{"file:///home/me/caf%C3%A9", "/home/me/café", ""},
		{"file:///home//me", "/home/me", ""},
		{"file:///", "/", ""}, // parsed; Resolve refuses the root itself
		{"file://", "", "no absolute path"},
		{"file:", "", "no absolute path"},
		{"file:home/me", "", "file:relative"},
		{"file:./proj", "", "file:relative"},
		{"home/me", "", "not a file://"},
		{"/home/me", "", "not a file://"},
		{"", "", "not a file://"},
		{"http://example.com/home", "", "not a file://"},
		{"https:///home/me", "", "not a file://"},
		{"vscode-remote://ssh/home/me", "", "not a file://"},
		{"file://server/share/x", "", `names host "server"`},
		{"file://127.0.0.1/home", "", "names host"},
		{"file://localhost:80/home", "", "names host"},
		{"file://user@localhost/home", "", "user information"},
		{"file:///home/me?x=1", "", "query or fragment"},
		{"file:///home/me?", "", "query or fragment"},
		{"file:///home/me#frag", "", "query or fragment"},
		{"file:///home/me/../../etc", "", `".." segment`},
		{"file:///home/me/..", "", `".." segment`},
		{"file:///home/./me", "", `"." or ".." segment`},
		{"file:///home/me/%2E%2E/x", "", `".." segment`},
		{"file:///home%2Fme", "", "encoded separator"},
		{"file:///home/me%5Cx", "", "encoded separator"},
		{"file:///home/me%00x", "", "encoded separator or NUL"},
		{"file:///home/me\x00", "", "control character"},
		{"file:///home/me\nx", "", "control character"},
		{"file:///home/me%0Ax", "", "control character"},
		{"file:///home\\me", "", "backslash"},
		{"file:///home/me%zz", "", "not a URI"},
		{"file:///" + strings.Repeat("a", 5000), "", "longer than"},
	}
	for _, tt := range tests {
		got, err := Parse(tt.uri)
		if tt.want != "" {
			if err != nil || got != tt.want {
				t.Errorf("Parse(%q) = %q, %v; want %q", tt.uri, got, err, tt.want)
			}
			continue
		}
		if err == nil {
			t.Errorf("Parse(%q) = %q; want refused (%s)", tt.uri, got, tt.why)
		} else if !strings.Contains(err.Error(), tt.why) {
			t.Errorf("Parse(%q) refused with %q; want it to say %q", tt.uri, err, tt.why)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"file:///a/b", "file://localhost/x", "file:///a/%2e%2e", "file:x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, uri string) {
		p, err := Parse(uri)
		if err != nil {
			return
		}
		if runtime.GOOS != "windows" && (!strings.HasPrefix(p, "/") || strings.Contains(p, "/../") || strings.HasSuffix(p, "/..")) {
			t.Fatalf("Parse(%q) = %q: not absolute and clean", uri, p)
		}
	})
}
