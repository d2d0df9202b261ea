package shellinit

import "testing"

func TestIsShellCommand(t *testing.T) {
	tests := map[string]bool{
		"bash": true, " bash ": true, "/bin/bash -i": true, "bash -l": true, "bash --login -i": true, "bash -il": true,
		"bash -c 'echo hi'": false, "bash script.sh": false, "bash --norc": false, "zsh": true, "fish -l": true, "zsh -c true": false, "fish --private": false, "sh -i": false,
		"bashful": false, "": false, "bash; echo": false,
	}
	for cmd, want := range tests {
		if got := IsShellCommand(cmd); got != want {
			t.Errorf("IsShellCommand(%q) = %v, want %v", cmd, got, want)
		}
	}
}

func TestShellQuote(t *testing.T) {
	tests := map[string]string{
		"/usr/bin/bash":  "/usr/bin/bash",
		"/tmp/a b/rc":    "'/tmp/a b/rc'",
		"it's":           `'it'\''s'`,
		"":               "''",
		"/x/$HOME/`id`/": "'/x/$HOME/`id`/'",
	}
	for in, want := range tests {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}

// After a write, the state from before it does not count: a program that
// takes the input and works a while before it asks again is not reported
// waiting until it asks again, even though it was blocked reading (in the
// same read) when the write went in.
