package prompt

import "testing"

func TestLooksLikePrompt(t *testing.T) {
	tests := []struct {
		line string
		kind Kind // "" means not a prompt
	}{
		// Prompts.
		{">>> ", KindLine},
		{"... ", KindLine},
		{"> ", KindLine},
		{"$ ", KindLine},
		{"user@host:~/src$ ", KindLine},
		{"root@box:/# ", KindLine},
		{`C:\Users\me>`, KindLine},          // cmd.exe
		{`C:\Program Files\App>`, KindLine}, // cmd.exe
		{`PS C:\Users\me> `, KindLine},      // PowerShell
		{`PS Microsoft.PowerShell.Core\FileSystem::\\srv\share> `, KindLine},
		{"% ", KindLine},
		{"Enter your name: ", KindLine},
		{"What is your favorite color? ", KindLine},
		{"Continue? [y/N] ", KindLine},
		{"Overwrite? [Y/n]", KindLine},
		{"Are you sure you want to continue connecting (yes/no)? ", KindLine},
		{"Proceed (y/n)", KindLine},
		{"(gdb) ", KindLine},
		{"Make breakpoint pending on future shared library load? (y or [n]) ", KindLine},
		{"Quit anyway? (y or n) ", KindLine},
		{"Start it from the beginning? ([y] or n) ", KindLine},
		{"(Pdb) ", KindLine},
		{"ipdb> ", KindLine},
		{"In [3]: ", KindLine},
		{"postgres=# ", KindLine},
		{"mysql> ", KindLine},
		{"Enter a number between 1 and 10: ", KindLine},
		{"package name: (my-app) ", KindLine},
		{"Password: ", KindPassword},
		{"Password:", KindPassword},
		{"[sudo] password for alice: ", KindPassword},
		{"Enter passphrase for key '/home/a/.ssh/id_ed25519': ", KindPassword},
		{"Enter PIN: ", KindPassword},

		// Not prompts: output still being written, or progress.
		{"", ""},
		{"   ", ""},
		{"hello", ""},
		{"Compiling foo: ", ""},
		{"   Compiling serde v1.0.197", ""},
		{"collecting ... ", ""},
		{"collecting ...", ""},
		{"Downloading: ", ""},
		{"Building wheel for x (pyproject.toml): ", ""},
		{"Running tests: ", ""},
		{"Loading... ", ""},
		{"45% ", ""},
		{"[=====>     ] 45%", ""},
		{"Waiting for server: ", ""},
		{"tests/test_a.py::test_one ", ""},
		{"ok", ""},
		{"x" + string(make([]byte, 400)) + ": ", ""},
	}
	for _, tt := range tests {
		kind, ok := LooksLikePrompt(tt.line)
		if ok != (tt.kind != "") || kind != tt.kind {
			t.Errorf("LooksLikePrompt(%q) = %q, %v; want %q", tt.line, kind, ok, tt.kind)
		}
	}
}

// A masked prompt shows one '*' per key typed; it is a password prompt with
// or without them, and other lines are not.
func TestMaskedPasswordPrompt(t *testing.T) {
	for line, want := range map[string]bool{
		"Password: ":            true,
		"Password: ****":        true,
		"  Enter passphrase:**": true,
		"PIN: *":                true,
		"Name: ":                false,
		"**** ":                 false,
		"password reset done":   false,
		">>> ":                  false,
	} {
		if got := MaskedPassword(line); got != want {
			t.Errorf("MaskedPassword(%q) = %v, want %v", line, got, want)
		}
	}
}
