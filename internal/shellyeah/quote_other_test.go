//go:build !windows

package shellyeah

import "testing"

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
