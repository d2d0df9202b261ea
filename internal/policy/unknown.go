package policy

import (
	"fmt"
	"slices"
	"strings"

	"github.com/yieldshell/yieldshell/internal/spell"
)

// securityWords mark a variable name as a security setting: a misspelled
// one would leave the server less confined than the operator meant, so
// the server refuses to start rather than run without it.
var securityWords = []string{"CWD", "SANDBOX", "TOKEN", "ALLOW", "DENY"}

// UnknownVars checks environ (KEY=VALUE entries) for YIELDSHELL_ variables
// that are not in known. Each one gets a warning naming it and the nearest
// known name; err, when one of them looks like a security setting, says
// the server must not start (its value is never repeated: it may be a
// secret).
func UnknownVars(environ, known []string) (warnings []string, err error) {
	var refused []string
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, "YIELDSHELL_") || slices.Contains(known, name) {
			continue
		}
		msg := fmt.Sprintf("%s is not a yieldshell setting and is ignored", name)
		if near := spell.Nearest(name, known); near != "" {
			msg += fmt.Sprintf("; did you mean %s?", near)
		} else {
			msg += " (yieldshell --help lists the settings)"
		}
		if security(name) {
			refused = append(refused, msg)
			continue
		}
		warnings = append(warnings, msg)
	}
	if len(refused) > 0 {
		return warnings, fmt.Errorf("not starting: %s. It looks like a security setting, and running without it "+
			"could leave commands less confined than you meant: fix or unset it", strings.Join(refused, "; "))
	}
	return warnings, nil
}

func security(name string) bool {
	rest := strings.TrimPrefix(name, "YIELDSHELL_")
	for _, w := range securityWords {
		if strings.Contains(rest, w) {
			return true
		}
	}
	return false
}
