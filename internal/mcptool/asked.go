package mcptool

import "github.com/yieldshell/yieldshell/prompt"

// Asked is what a waiting program asks, and whether a program that reads
// its terminal is serving instead: the answer fields both toolsets share.
type Asked struct {
	Choices  []string      `json:"choices,omitempty" jsonschema:"what to type (then Enter): a confirm's answers (e.g. [\"y\",\"n\"]) or a numbered menu's numbers"`
	Default  string        `json:"default,omitempty" jsonschema:"the answer Enter alone gives, when the prompt shows one (the capital letter of [Y/n], (yes), npm's (name))"`
	Range    *prompt.Range `json:"range,omitempty" jsonschema:"the numbers a line prompt accepts, as it shows them ((1-128, default 1) gives min 1, max 128 and default 1); a hint in brackets such as (2 chars), (days) or (? for help) is neither a default nor a range and stays in the prompt"`
	Items    []string      `json:"items,omitempty" jsonschema:"a menu's entries (input_kind choice), top to bottom or, for dialog buttons, left to right, without their markers"`
	Selected *int          `json:"selected,omitempty" jsonschema:"the 0-based index in items of the entry Enter picks now (highlighted or marked): press Down (or Right/Tab for buttons) selected-to-target times, then Enter"`
	Checked  []int         `json:"checked,omitempty" jsonschema:"indexes in items a multi-select or radio list shows ticked ([x], (*), ◉); Space toggles the entry at selected"`
	Ready    bool          `json:"ready,omitempty" jsonschema:"the program serves and reads its terminal only for shortcut keys: it listens on ports (or shows a hint like \"press h + enter to show help\"); it is up, and not waiting for input"`
	Ports    []int         `json:"ports,omitempty" jsonschema:"with ready: the TCP ports its process tree listens on"`
}

// NewAsked builds the shared fields; selected < 0 means none.
func NewAsked(choices []string, def string, rng *prompt.Range, items []string, selected int, checked []int, ready bool, ports []int) Asked {
	a := Asked{Choices: choices, Default: def, Range: rng, Items: items, Checked: checked, Ready: ready, Ports: ports}
	if selected >= 0 && selected < len(items) {
		a.Selected = &selected
	}
	return a
}
