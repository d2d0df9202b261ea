package mcptool

import (
	"strings"
	"testing"
)

func TestSchemaRefusal(t *testing.T) {
	for _, c := range []struct{ msg, want string }{
		{`validating root: validating /properties/side_effects: validating /properties/side_effects/items: validating /$defs/SideEffect: enum: EVIL does not equal any of: [NONE]`,
			"argument side_effects is not one of the values"},
		{`validating root: validating /properties/side_effects: type: EVIL has type "string", want "array"`,
			`argument side_effects has the wrong JSON type (want "array")`},
		{`validating root: unexpected additional properties ["EVIL"]`, "the arguments hold an argument the tool does not take"},
		{`validating root: required: missing properties: ["command"]`, `lack a required argument: ["command"]`},
		// A value that imitates the validator's own text is still a value.
		{`validating root: validating /properties/cwd: type: validating /properties/EVIL: enum: EVIL has type "number", want "string"`,
			`argument cwd has the wrong JSON type (want "string")`},
		{`validating root: validating /properties/n: minimum: EVIL is less than 0`, "argument n does not match the input schema"},
	} {
		got := SchemaRefusal(c.msg)
		if !strings.Contains(got, c.want) || strings.Contains(got, "EVIL") {
			t.Errorf("SchemaRefusal(%q)\n= %q\nwant it to hold %q and not EVIL", c.msg, got, c.want)
		}
	}
}
