package spell

import "testing"

func TestNearest(t *testing.T) {
	valid := []string{"NONE", "DELETES_FILES", "MAKES_NETWORK_REQUESTS", "YIELDSHELL_ALLOWED_CWDS"}
	for _, tc := range []struct{ word, want string }{
		{"none", "NONE"},
		{"DELETE_FILES", "DELETES_FILES"},
		{"MAKES_NETWORK_REQUEST", "MAKES_NETWORK_REQUESTS"},
		{"YIELDSHELL_ALLOWED_CWD", "YIELDSHELL_ALLOWED_CWDS"},
		{"NO", ""},
		{"WRITES_EVERYTHING", ""},
		{"", ""},
	} {
		if got := Nearest(tc.word, valid); got != tc.want {
			t.Errorf("Nearest(%q) = %q, want %q", tc.word, got, tc.want)
		}
	}
}
