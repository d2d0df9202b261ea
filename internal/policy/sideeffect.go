package policy

import (
	"fmt"
	"slices"
	"strings"
)

// The 21 side-effect categories, with the spec's canonical (case-sensitive)
// names. A SideEffect's value is its name, so it round-trips through JSON and
// environment variables unchanged.
const (
	ChangesNetworkConfiguration   SideEffect = "CHANGES_NETWORK_CONFIGURATION"
	ChangesPackagesOrDependencies SideEffect = "CHANGES_PACKAGES_OR_DEPENDENCIES"
	ConsumesSignificantResources  SideEffect = "CONSUMES_SIGNIFICANT_RESOURCES"
	DeletesFiles                  SideEffect = "DELETES_FILES"
	ExposesSecrets                SideEffect = "EXPOSES_SECRETS"
	KillsAgentProcess             SideEffect = "KILLS_AGENT_PROCESS"
	MakesNetworkRequests          SideEffect = "MAKES_NETWORK_REQUESTS"
	ModifiesOSSettings            SideEffect = "MODIFIES_OS_SETTINGS"
	ModifiesOSUserSettings        SideEffect = "MODIFIES_OS_USER_SETTINGS"
	ModifiesOutsideWorkspace      SideEffect = "MODIFIES_OUTSIDE_WORKSPACE"
	ModifiesProductionServices    SideEffect = "MODIFIES_PRODUCTION_SERVICES"
	ModifiesProtectedFiles        SideEffect = "MODIFIES_PROTECTED_FILES"
	ModifiesSecurityControls      SideEffect = "MODIFIES_SECURITY_CONTROLS"
	ModifiesWorkspaceFiles        SideEffect = "MODIFIES_WORKSPACE_FILES"
	None                          SideEffect = "NONE"
	Other                         SideEffect = "OTHER"
	RunsInlineCode                SideEffect = "RUNS_INLINE_CODE"
	RunsPrivilegedCommands        SideEffect = "RUNS_PRIVILEGED_COMMANDS"
	StopsOrRestartsServices       SideEffect = "STOPS_OR_RESTARTS_SERVICES"
	Unknown                       SideEffect = "UNKNOWN"
	UsesDestructiveGitOperation   SideEffect = "USES_DESTRUCTIVE_GIT_OPERATION"
)

// AllSideEffects returns every category in the spec's order, which is
// alphabetical. The slice is new on each call, so callers may modify it.
func AllSideEffects() []SideEffect {
	return []SideEffect{
		ChangesNetworkConfiguration,
		ChangesPackagesOrDependencies,
		ConsumesSignificantResources,
		DeletesFiles,
		ExposesSecrets,
		KillsAgentProcess,
		MakesNetworkRequests,
		ModifiesOSSettings,
		ModifiesOSUserSettings,
		ModifiesOutsideWorkspace,
		ModifiesProductionServices,
		ModifiesProtectedFiles,
		ModifiesSecurityControls,
		ModifiesWorkspaceFiles,
		None,
		Other,
		RunsInlineCode,
		RunsPrivilegedCommands,
		StopsOrRestartsServices,
		Unknown,
		UsesDestructiveGitOperation,
	}
}

// DefaultBlocked returns the categories refused when
// MCP_YIELDSHELL_BLOCKED_SIDE_EFFECTS is unset or blank, sorted.
func DefaultBlocked() []SideEffect {
	return []SideEffect{
		KillsAgentProcess,
		ModifiesOSSettings,
		ModifiesOSUserSettings,
		ModifiesProtectedFiles,
		RunsInlineCode,
	}
}

// SideEffectNames returns the canonical names as strings, in the spec's
// order: the enum of the side_effects items in exec's input schema.
func SideEffectNames() []string {
	all := AllSideEffects()
	names := make([]string, len(all))
	for i, e := range all {
		names[i] = string(e)
	}
	return names
}

// Valid reports whether e is one of the 21 canonical names (exact case).
func (e SideEffect) Valid() bool {
	_, ok := slices.BinarySearch(AllSideEffects(), e)
	return ok
}

// canonicalFold returns the canonical category equal to name under case
// folding, so a refusal can suggest the spelling the agent meant.
func canonicalFold(name string) (SideEffect, bool) {
	for _, e := range AllSideEffects() {
		if strings.EqualFold(string(e), name) {
			return e, true
		}
	}
	return "", false
}

// CheckSideEffects validates a declaration and refuses blocked categories, in
// the spec's order: the list is non-empty, every entry is a canonical name,
// NONE stands alone, and no declared category is blocked. The error is a
// *Refusal with Rule "side_effects"; its message is written for the agent and
// always says what to do instead.
func (c *Config) CheckSideEffects(declared []string) error {
	if len(declared) == 0 {
		return refuse("side_effects", "side_effects is empty: declare every side effect the command may plausibly have, "+
			`or pass ["NONE"] for a read-only command. Nothing was started.`)
	}
	if msg := invalidEntries(declared); msg != "" {
		return refuse("side_effects", msg)
	}
	if msg := noneCombined(declared); msg != "" {
		return refuse("side_effects", msg)
	}
	if hits := c.blockedHits(declared); len(hits) > 0 {
		return askable("side_effects", blockedMessage(hits))
	}
	return nil
}

// invalidEntries describes the entries that are not canonical names, or
// returns "" when all are.
func invalidEntries(declared []string) string {
	var bad []string
	for _, d := range declared {
		if SideEffect(d).Valid() {
			continue
		}
		if e, ok := canonicalFold(d); ok {
			bad = append(bad, fmt.Sprintf("%q (names are case-sensitive: did you mean %q?)", d, e))
		} else {
			bad = append(bad, fmt.Sprintf("%q", d))
		}
	}
	if len(bad) == 0 {
		return ""
	}
	return fmt.Sprintf("side_effects has unknown categories: %s. Nothing was started. "+
		"Use the canonical upper-case names (case-sensitive): %s.",
		strings.Join(bad, ", "), strings.Join(SideEffectNames(), ", "))
}

// noneCombined describes a declaration that mixes NONE with real categories,
// or returns "" when it does not. ["NONE", "NONE"] is still just NONE.
func noneCombined(declared []string) string {
	if !slices.Contains(declared, string(None)) {
		return ""
	}
	var others []string
	for _, d := range declared {
		if d != string(None) && !slices.Contains(others, d) {
			others = append(others, d)
		}
	}
	if len(others) == 0 {
		return ""
	}
	return fmt.Sprintf("side_effects combines NONE with %s: NONE means the command has no meaningful side effect, "+
		"so it must be the only entry. Nothing was started. Drop NONE and keep the other categories, "+
		`or declare ["NONE"] alone if the command really is read-only.`, strings.Join(others, ", "))
}

// blockedHits returns the declared categories that are blocked, in declared
// order with duplicates collapsed.
func (c *Config) blockedHits(declared []string) []SideEffect {
	var hits []SideEffect
	for _, d := range declared {
		e := SideEffect(d)
		if slices.Contains(c.Rules.Blocked, e) && !slices.Contains(hits, e) {
			hits = append(hits, e)
		}
	}
	return hits
}

func blockedMessage(hits []SideEffect) string {
	names := make([]string, len(hits))
	for i, e := range hits {
		names[i] = string(e)
	}
	subject := "category " + names[0] + " is"
	if len(hits) > 1 {
		subject = "categories " + strings.Join(names, ", ") + " are"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "side_effects: the declared %s blocked by policy (MCP_YIELDSHELL_BLOCKED_SIDE_EFFECTS). "+
		"Nothing was started: execution was stopped by policy before the process started.", subject)
	for _, e := range hits {
		fmt.Fprintf(&b, " Next step for %s: %s", e, guidance(e))
	}
	return b.String()
}

// guidance is the safer next action for a blocked category. Each names what
// the category covers, so the agent can tell whether it over-declared, and
// what to do instead; none suggests hiding the side effect.
func guidance(e SideEffect) string {
	switch e {
	case RunsInlineCode:
		return "do not pass code inline to an interpreter or shell (python -c, node -e, a heredoc piped into " +
			"an interpreter, curl ... | sh). Write the code to a reviewable file in the workspace " +
			"(for example scripts/task.py), then run that file in a small, inspectable step whose side_effects " +
			"match what it does."
	case ModifiesProtectedFiles:
		return "leave protected files alone and work on a workspace-scoped path instead; if the change is " +
			"really needed, ask the operator to allow it by changing MCP_YIELDSHELL_BLOCKED_SIDE_EFFECTS."
	case ModifiesOSSettings:
		return "this category covers system-wide configuration (systemd units, kernel parameters, files under " +
			"/etc, system package-manager config, global service defaults), which this server may not change. " +
			"Keep the change inside the workspace and re-declare with a safer category, or ask the operator " +
			"for an explicit policy override."
	case ModifiesOSUserSettings:
		return "this category covers per-user configuration (shell rc files, dotfiles, XDG config " +
			"directories, per-user application preferences), which this server may not change. Use a " +
			"project-local setting in the workspace and re-declare with a safer category, or ask the operator " +
			"for an explicit policy override."
	case KillsAgentProcess:
		return "this category covers commands that could end the MCP client, the agent or a process its " +
			"workflow depends on (for example a kill aimed at the agent's PID). To end a process this server " +
			"started, use the stop tool with its process_id; otherwise re-declare with a safer category or ask " +
			"the operator for an explicit policy override."
	case DeletesFiles:
		return "prefer a reversible change (move the files to a backup directory or rely on version control), " +
			"or ask the user to confirm the deletion explicitly before trying again."
	case RunsPrivilegedCommands:
		return "run the command without sudo or root privileges, or ask the operator for an explicit policy " +
			"override."
	case None:
		return "the operator has blocked even read-only declarations, so no command can run here; ask the " +
			"operator to change MCP_YIELDSHELL_BLOCKED_SIDE_EFFECTS."
	default:
		return "re-declare with a category the policy allows if that is accurate, or ask the operator to " +
			"change MCP_YIELDSHELL_BLOCKED_SIDE_EFFECTS."
	}
}
