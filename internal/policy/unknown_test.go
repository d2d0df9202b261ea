package policy

import (
	"strings"
	"testing"
)

func TestUnknownVars(t *testing.T) {
	known := []string{"YIELDSHELL_ALLOWED_CWDS", "YIELDSHELL_DEFAULT_CWD", "YIELDSHELL_MAX_OUTPUT_BYTES", "YIELDSHELL_LOG_LEVEL"}
	for _, tc := range []struct {
		env      string
		warning  string // "" : none
		refusal  string // "" : starts
		noSecret string // never in any text
	}{
		{"YIELDSHELL_ALLOWED_CWDS=/tmp", "", "", ""},
		{"PATH=/bin", "", "", ""},
		{"YIELDSHELL_MAX_OUTPUT_BYTE=10", "YIELDSHELL_MAX_OUTPUT_BYTE is not a yieldshell setting and is ignored; did you mean YIELDSHELL_MAX_OUTPUT_BYTES?", "", ""},
		{"YIELDSHELL_LOGLEVEL=DEBUG", "did you mean YIELDSHELL_LOG_LEVEL?", "", ""},
		{"YIELDSHELL_FROBNICATE=1", "(yieldshell --help lists the settings)", "", ""},
		{"YIELDSHELL_ALLOWED_CWD=/tmp", "", "YIELDSHELL_ALLOWED_CWD is not a yieldshell setting and is ignored; did you mean YIELDSHELL_ALLOWED_CWDS?", ""},
		{"YIELDSHELL_SANDBOX=1", "", "YIELDSHELL_SANDBOX is not", ""},
		{"YIELDSHELL_HTTP_TOKN=s3cret-value", "", "", ""},
		{"YIELDSHELL_API_TOKEN=s3cret-value", "", "YIELDSHELL_API_TOKEN is not", "s3cret-value"},
		{"YIELDSHELL_DENY_REGEX=rm", "", "security setting", ""},
		{"YIELDSHELL_ALLOW_COMMAND=^ls", "", "security setting", ""},
	} {
		t.Run(tc.env, func(t *testing.T) {
			w, err := UnknownVars([]string{tc.env}, known)
			got := strings.Join(w, "\n")
			if tc.warning == "" && got != "" && tc.refusal == "" && !strings.Contains(tc.env, "TOKN") {
				t.Errorf("warnings %q", got)
			}
			if tc.warning != "" && !strings.Contains(got, tc.warning) {
				t.Errorf("warnings %q, want %q", got, tc.warning)
			}
			switch {
			case tc.refusal == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tc.refusal != "" && (err == nil || !strings.Contains(err.Error(), tc.refusal)):
				t.Errorf("error %v, want %q", err, tc.refusal)
			}
			if tc.noSecret != "" && (strings.Contains(got, tc.noSecret) || err != nil && strings.Contains(err.Error(), tc.noSecret)) {
				t.Errorf("the value is repeated: %q %v", got, err)
			}
		})
	}
}
