package sandbox

import (
	"strings"
	"testing"
)

func TestAllowed(t *testing.T) {
	p := &Policy{Writable: []string{"/w", "/tmp/t"}, Protected: []string{"/w/.ys"}}
	for _, c := range []struct {
		op, path string
		want     bool
	}{
		{"open", "/w/a/b", true},
		{"open", "/w", true},
		{"open", "/wx/a", false},
		{"open", "/etc/passwd", false},
		{"open", "/tmp/t/x", true},
		{"open", "/w/.git/hooks/pre-commit", false},
		{"mkdir", "/w/.git/hooks", false},
		{"open", "/w/sub/.git/config", false},
		{"open", "/w/.git/config.lock", true}, // git's own lock, renamed over config: the rename is refused
		{"rename", "/w/.git/config", false},
		{"open", "/w/.git/index.lock", true},
		{"mkdir", "/w/new/.git", true},
		{"rename", "/w/x/.git", false},
		{"symlink", "/w/.git", false},
		{"open", "/w/.git", false},
		{"open", "/w/.ys/f", false},
		{"rename", "/w/.ys", false},
		{"unlink", "/w/..", false},
	} {
		if got := p.allowed(c.op, c.path); got != c.want {
			t.Errorf("%s %s: allowed = %v, want %v", c.op, c.path, got, c.want)
		}
	}
}

func TestDenialsBounded(t *testing.T) {
	var d denials
	for i := range 40 {
		d.add("open", "/xa"+string(rune('a'+i)), "")
		d.add("open", "/same", "")
	}
	list := d.snapshot()
	if len(list) != MaxDenials+1 || list[MaxDenials].Op != "more" || list[MaxDenials].Count != 40-(MaxDenials-1) || list[0].Path != "/xaa" {
		t.Errorf("denials = %+v", list)
	}
	if list[1].Path != "/same" || list[1].Count != 40 {
		t.Errorf("repeated denial = %+v, want /same counted 40 times", list[1])
	}
}

func TestSeatbeltProfile(t *testing.T) {
	p := &Policy{Network: NetworkOff, Writable: []string{`/Users/a "b"`}, Protected: []string{"/Users/a/.ys"}}
	got := SeatbeltProfile(p)
	for _, want := range []string{`(deny file-write*)`, `(subpath "/Users/a \"b\"")`, `(literal "/dev/null")`,
		`(deny file-write* (regex #"/\.git/(hooks|config)(/|$)")`, `(subpath "/Users/a/.ys")`, `(deny network*)`,
		`(allow signal (target same-sandbox))`} {
		if !strings.Contains(got, want) {
			t.Errorf("profile lacks %s:\n%s", want, got)
		}
	}
	if strings.Count(got, "(") != strings.Count(got, ")") {
		t.Errorf("unbalanced profile:\n%s", got)
	}
	p.Network = NetworkOn
	if strings.Contains(SeatbeltProfile(p), "network") {
		t.Error("network on still fences the network")
	}
	path, argv := SeatbeltArgv(p, []string{"/bin/bash", "-c", "true"})
	if path != "/usr/bin/sandbox-exec" || argv[1] != "-p" || argv[len(argv)-1] != "true" {
		t.Errorf("argv %q %q", path, argv)
	}
}
