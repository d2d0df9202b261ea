package policy

import (
	"errors"
	"slices"
	"testing"
)

func TestSideEffectLists(t *testing.T) {
	all := AllSideEffects()
	if len(all) != 21 {
		t.Fatalf("AllSideEffects has %d entries, want 21", len(all))
	}
	if !slices.IsSorted(all) {
		t.Errorf("AllSideEffects is not alphabetical: %v", all)
	}
	names := SideEffectNames()
	for i, e := range all {
		if names[i] != string(e) || !e.Valid() {
			t.Errorf("entry %d: %q / %q", i, e, names[i])
		}
	}
	def := DefaultBlocked()
	if !slices.Equal(def, []SideEffect{KillsAgentProcess, ModifiesOSSettings, ModifiesOSUserSettings,
		ModifiesProtectedFiles, RunsInlineCode}) {
		t.Errorf("DefaultBlocked = %v", def)
	}
	// Callers get their own copies.
	all[0] = "X"
	if AllSideEffects()[0] == "X" {
		t.Error("AllSideEffects shares its slice")
	}
	for _, bad := range []SideEffect{"", "none", "BREAKS_OPERATING_SYSTEM", "NONE "} {
		if bad.Valid() {
			t.Errorf("%q.Valid() = true", bad)
		}
	}
}

func TestCheckSideEffects(t *testing.T) {
	defaults := &Config{Rules: Rules{Blocked: DefaultBlocked()}}
	nothing := &Config{Rules: Rules{Blocked: []SideEffect{}}}
	noneBlocked := &Config{Rules: Rules{Blocked: []SideEffect{None}}}
	tests := []struct {
		name     string
		c        *Config
		declared []string
		want     []string // substrings; nil means accepted
		absent   []string
	}{
		{"nil", defaults, nil, []string{"empty", `["NONE"]`, "Nothing was started"}, nil},
		{"empty", defaults, []string{}, []string{"empty", `["NONE"]`}, nil},
		{"unknown", defaults, []string{"TELEPORT_COWS"}, []string{`"TELEPORT_COWS"`, "case-sensitive", "MODIFIES_WORKSPACE_FILES"}, nil},
		{"wrong case", defaults, []string{"none"}, []string{`"none"`, `did you mean "NONE"`, "case-sensitive"}, nil},
		{"unknown among valid", defaults, []string{"DELETES_FILES", "Deletes_Files", "X"},
			[]string{`"Deletes_Files"`, `did you mean "DELETES_FILES"`, `"X"`}, nil},
		{"unknown before blocked", defaults, []string{"RUNS_INLINE_CODE", "x"}, []string{`"x"`}, []string{"blocked"}},
		{"NONE alone", defaults, []string{"NONE"}, nil, nil},
		{"NONE twice", defaults, []string{"NONE", "NONE"}, nil, nil},
		{"NONE combined", defaults, []string{"NONE", "DELETES_FILES", "MAKES_NETWORK_REQUESTS", "DELETES_FILES"},
			[]string{"NONE", "DELETES_FILES, MAKES_NETWORK_REQUESTS", "only entry"}, []string{"DELETES_FILES, DELETES_FILES"}},
		{"NONE combined before blocked", defaults, []string{"RUNS_INLINE_CODE", "NONE"},
			[]string{"combines NONE with RUNS_INLINE_CODE"}, []string{"blocked"}},
		{"allowed category", defaults, []string{"MODIFIES_WORKSPACE_FILES", "MAKES_NETWORK_REQUESTS"}, nil, nil},
		{"DELETES_FILES not blocked by default", defaults, []string{"DELETES_FILES"}, nil, nil},
		{"RUNS_INLINE_CODE", defaults, []string{"RUNS_INLINE_CODE"},
			[]string{"RUNS_INLINE_CODE is blocked by policy", "stopped by policy before the process started",
				"Nothing was started", "reviewable", "workspace", "inspectable", "python -c"}, nil},
		{"MODIFIES_PROTECTED_FILES", defaults, []string{"MODIFIES_PROTECTED_FILES"},
			[]string{"blocked by policy", "stopped by policy", "workspace-scoped", "MCP_YIELDSHELL_BLOCKED_SIDE_EFFECTS"}, nil},
		{"MODIFIES_OS_SETTINGS", defaults, []string{"MODIFIES_OS_SETTINGS"},
			[]string{"blocked by policy", "systemd", "/etc", "re-declare", "policy override"}, nil},
		{"MODIFIES_OS_USER_SETTINGS", defaults, []string{"MODIFIES_OS_USER_SETTINGS"},
			[]string{"blocked by policy", "dotfiles", "re-declare", "policy override"}, nil},
		{"KILLS_AGENT_PROCESS", defaults, []string{"KILLS_AGENT_PROCESS"},
			[]string{"blocked by policy", "agent", "re-declare", "policy override"}, nil},
		{"multiple blocked, declared order, duplicates collapsed", defaults,
			[]string{"RUNS_INLINE_CODE", "DELETES_FILES", "MODIFIES_PROTECTED_FILES", "RUNS_INLINE_CODE"},
			[]string{"categories RUNS_INLINE_CODE, MODIFIES_PROTECTED_FILES are blocked",
				"Next step for RUNS_INLINE_CODE", "Next step for MODIFIES_PROTECTED_FILES"},
			[]string{"Next step for DELETES_FILES"}},
		{"unblocked after comma", nothing, []string{"RUNS_INLINE_CODE", "KILLS_AGENT_PROCESS"}, nil, nil},
		{"NONE blocked via env", noneBlocked, []string{"NONE"}, []string{"NONE is blocked by policy", "read-only"}, nil},
		{"DELETES_FILES blocked", &Config{Rules: Rules{Blocked: []SideEffect{DeletesFiles}}}, []string{"DELETES_FILES"},
			[]string{"reversible", "confirm"}, nil},
		{"generic guidance", &Config{Rules: Rules{Blocked: []SideEffect{MakesNetworkRequests}}}, []string{"MAKES_NETWORK_REQUESTS"},
			[]string{"re-declare", "operator"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.c.CheckSideEffects(tt.declared)
			if tt.want == nil {
				if err != nil {
					t.Fatalf("CheckSideEffects(%q) = %v, want nil", tt.declared, err)
				}
				return
			}
			var r *Refusal
			if !errors.As(err, &r) || r.Rule != "side_effects" {
				t.Fatalf("CheckSideEffects(%q) = %#v, want a side_effects Refusal", tt.declared, err)
			}
			checkMessage(t, r.Message, tt.want, tt.absent)
		})
	}
}

// Each blocked category gets guidance of its own; only the generic ones
// share the fallback.
func TestGuidanceDistinct(t *testing.T) {
	seen := map[string]SideEffect{}
	for _, e := range []SideEffect{RunsInlineCode, ModifiesProtectedFiles, ModifiesOSSettings,
		ModifiesOSUserSettings, KillsAgentProcess, DeletesFiles} {
		g := guidance(e)
		if prev, ok := seen[g]; ok {
			t.Errorf("%s and %s share guidance", e, prev)
		}
		seen[g] = e
	}
}
