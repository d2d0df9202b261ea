package shellyeah

import "testing"

func TestSummarize(t *testing.T) {
	for _, c := range []struct {
		lines  []string
		prompt string
		want   string
	}{
		{[]string{"  Local: http://localhost:5173/", "WARNING: low disk space", "Error: connection refused", "Enter admin password: "},
			"", "Since last check: Errors (1), Warnings (1), URLs (1), Prompts (1).\n• Error: connection refused\n• WARNING: low disk space\n• Local: http://localhost:5173/"},
		{[]string{"compiling", "done"}, "", nothingNotable},
		{[]string{"Error 1", "error 2", "Error 3", "Error 4", "Warning 1"}, "",
			"Since last check: Errors (4), Warnings (1).\n• Error 1\n• error 2\n• Error 3"},
		{[]string{"terrorist attack in the log"}, "", nothingNotable},
		{nil, "Name? ", "Since last check: Prompts (1).\n• Name?"},
		{[]string{"Continue? [y/N]"}, "Continue? [y/N] ", "Since last check: Prompts (1).\n• Continue? [y/N]"},
	} {
		if got := summarize(c.lines, c.prompt); got != c.want {
			t.Errorf("summarize(%q, %q) = %q, want %q", c.lines, c.prompt, got, c.want)
		}
	}
}
