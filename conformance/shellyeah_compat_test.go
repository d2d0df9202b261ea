package conformance

import (
	"slices"
	"testing"
)

// Behaviours of the shell-yeah toolset that the peer's own clients rely on
// (issue 17). Each test names the behaviour it checks.

// shellYeah starts a server with the shell-yeah toolset.
func shellYeah(t *testing.T, env ...string) *server {
	t.Helper()
	return start(t, "", append([]string{"YIELDSHELL_TOOLSET=shell-yeah"}, env...)...)
}

// "Zod strips unknown arguments silently": the peer's clients send
// arguments its tools never declared. They are accepted and named.
func TestShellYeahAcceptsAndNamesUnknownArguments(t *testing.T) {
	s := shellYeah(t)
	st := s.call("start_shell", map[string]any{"command": "sleep", "args": []string{"30"}, "workingDirectory": t.TempDir(),
		"label": "sleeper", "retry_count": 2, "color": "blue"})
	if st.isError || st.str("status") != "running" || !slices.Equal(strs(st.m["ignored_arguments"]), []string{"color", "retry_count"}) {
		t.Errorf("start_shell with unknown arguments: %s", st.text)
	}
	c := s.call("check_shell", map[string]any{"label": "sleeper", "verbose": true})
	if c.isError || !slices.Equal(strs(c.m["ignored_arguments"]), []string{"verbose"}) {
		t.Errorf("check_shell with an unknown argument: %s", c.text)
	}
	if h := s.call("health_check", map[string]any{"x": 1}); h.isError || !slices.Equal(strs(h.m["ignored_arguments"]), []string{"x"}) {
		t.Errorf("health_check with an unknown argument: %s", h.text)
	}
	if c := s.call("check_shell", map[string]any{"label": "sleeper"}); c.has("ignored_arguments") {
		t.Errorf("check_shell without unknown arguments names some: %s", c.text)
	}
}

// The peer's clients pass verification_pattern and verification_timeout_ms
// to start_shell, meaning "answer once this appears".
func TestShellYeahStartShellVerifiesPattern(t *testing.T) {
	s := shellYeah(t)
	st := s.call("start_shell", map[string]any{"command": `"$YS_HELPER_BIN"`, "args": []string{"ys-helper", "devserver", "300", devURL},
		"workingDirectory": t.TempDir(), "label": "web", "verification_pattern": "^ready$", "verification_timeout_ms": 20000})
	if st.isError || st.m["verified"] != true || st.m["isVerificationEnabled"] != true || st.str("verificationPattern") != "^ready$" ||
		st.num("verificationTimeoutMs") != 20000 || !slices.Contains(strs(st.m["shellLogs"]), "ready") || st.has("ignored_arguments") {
		t.Errorf("start_shell with verification_pattern: %s", st.text)
	}
	bad := s.call("start_shell", map[string]any{"command": "true", "workingDirectory": t.TempDir(), "verification_pattern": "("})
	if !bad.isError || bad.str("status") != "error" {
		t.Errorf("start_shell with an invalid verification_pattern: %s", bad.text)
	}
}

// strs converts a decoded JSON array of strings.
func strs(v any) []string {
	a, _ := v.([]any)
	out := make([]string, 0, len(a))
	for _, e := range a {
		s, _ := e.(string)
		out = append(out, s)
	}
	return out
}
