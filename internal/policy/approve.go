package policy

// Askable refusals. With YIELDSHELL_ASK set, and a client that can ask its
// user (form elicitation), a refusal whose Askable is set is put to the
// user instead of answered: allowed, the command runs once as if the rule
// were absent ([Config.Waive]). Askable are the rules an operator states as
// defaults a person may override for one call: a blocked side-effect
// category, a cwd outside the allowed roots, the deny regex. Never askable:
// the allow regex (the operator's list of the only commands permitted),
// the process limit, and refusals of a malformed call (an empty or unknown
// side-effect declaration, a cwd that does not exist).

// askable is refuse for a rule a person may waive for one call.
func askable(rule, msg string) *Refusal {
	return &Refusal{Rule: rule, Message: msg, Askable: true}
}

// Waive returns a copy of c without the askable part of each rule named:
// "side_effects" blocks no category, "deny_command_regex" denies nothing,
// "cwd" admits any directory. Other names are ignored; with none, c
// itself is returned.
func (c *Config) Waive(rules ...string) *Config {
	if len(rules) == 0 {
		return c
	}
	w := *c
	for _, r := range rules {
		switch r {
		case "side_effects":
			w.Rules.Blocked = nil
		case "deny_command_regex":
			w.Rules.DenyCommand = nil
		case "cwd":
			w.Cwd.Allowed, w.Cwd.FromRoots, w.Cwd.noRoots = nil, false, ""
		}
	}
	return &w
}
