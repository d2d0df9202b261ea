package shellyeah

import (
	"strings"
	"testing"
)

func TestSummarize(t *testing.T) {
	for _, c := range []struct {
		lines []string
		want  []string
	}{
		{[]string{"  Local: http://localhost:5173/", "WARNING: low disk space", "Error: connection refused", "Enter admin password: "},
			[]string{"errors: 1, warnings: 1, URLs: 1, prompts: 1.", "- Error: connection refused\n- WARNING: low disk space\n- Local: http://localhost:5173/"}},
		{[]string{"compiling", "done"}, []string{"Nothing notable"}},
		{[]string{"Error 1", "error 2", "Error 3", "Error 4", "Warning 1"},
			[]string{"errors: 4, warnings: 1.", "- Error 1\n- error 2\n- Error 3"}},
		{[]string{"terrorist attack in the log"}, []string{"Nothing notable"}},
	} {
		got := summarize(c.lines)
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("summarize(%q) = %q, want it to contain %q", c.lines, got, w)
			}
		}
	}
}

func TestJoinCommand(t *testing.T) {
	for _, c := range []struct {
		cmd  string
		args []string
		want string
	}{
		{"npm", []string{"run", "dev"}, "npm run dev"},
		{"echo", []string{"hello world", "it's", "$HOME"}, `echo 'hello world' 'it'\''s' '$HOME'`},
		{"npm run dev", nil, "npm run dev"},
	} {
		if got := joinCommand(c.cmd, c.args); got != c.want {
			t.Errorf("joinCommand(%q, %q) = %q, want %q", c.cmd, c.args, got, c.want)
		}
	}
}
