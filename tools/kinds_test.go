package tools

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/yieldshell/yieldshell/internal/policy"
	"github.com/yieldshell/yieldshell/prompt"
)

// TestDescriptionsListPromptKinds: every description of input_kind, in
// any tool's schema or text, names exactly prompt's kinds, in its order,
// and what it says of a kind begins with prompt's meaning of it: a new
// kind is added to prompt's table, and the descriptions follow or this
// fails.
func TestDescriptionsListPromptKinds(t *testing.T) {
	var want []string
	for _, k := range prompt.Kinds() {
		want = append(want, string(k))
	}
	lists := 0
	check := func(where, list string) {
		t.Helper()
		lists++
		names, glosses := listedKinds(list)
		if !slices.Equal(names, want) {
			t.Errorf("%s lists %q, want prompt's kinds %q", where, names, want)
		}
		for i, g := range glosses {
			if m := prompt.Kind(names[i]).Meaning(); g != "" && !strings.HasPrefix(g, m) {
				t.Errorf("%s says of %s %q, which does not begin with prompt's meaning %q", where, names[i], g, m)
			}
		}
	}
	for _, tool := range listTools(t, policy.ToolsetAll).Tools {
		if _, rest, ok := strings.Cut(tool.Description, "input_kind says what it asks "); ok {
			check(tool.Name+"'s description", parenthesized(rest))
		}
		b, err := json.Marshal(tool)
		if err != nil {
			t.Fatal(err)
		}
		var schemas any
		if err := json.Unmarshal(b, &schemas); err != nil {
			t.Fatal(err)
		}
		for _, d := range propertyDescriptions(schemas, "input_kind") {
			_, list, ok := strings.Cut(d, "what it waits for: ")
			if !ok {
				t.Errorf("%s: input_kind's description names no kinds: %q", tool.Name, d)
				continue
			}
			check(tool.Name+"'s input_kind", list)
		}
	}
	if lists < 3 {
		t.Errorf("found %d lists of kinds, want at least 3 (exec's text, the answers' and shellyeah's input_kind)", lists)
	}
}

// propertyDescriptions returns the descriptions of every property named
// name anywhere in a JSON schema (decoded into maps).
func propertyDescriptions(v any, name string) []string {
	var out []string
	switch v := v.(type) {
	case map[string]any:
		if props, ok := v["properties"].(map[string]any); ok {
			if p, ok := props[name].(map[string]any); ok {
				if d, ok := p["description"].(string); ok {
					out = append(out, d)
				}
			}
		}
		for _, c := range v {
			out = append(out, propertyDescriptions(c, name)...)
		}
	case []any:
		for _, c := range v {
			out = append(out, propertyDescriptions(c, name)...)
		}
	}
	return out
}

// parenthesized returns what the parenthesis s opens holds, up to the one
// that closes it.
func parenthesized(s string) string {
	depth := 0
	for i, r := range s {
		switch r {
		case '(':
			depth++
		case ')':
			if depth--; depth == 0 {
				return s[1:i]
			}
		}
	}
	return ""
}

// listedKinds reads a list such as "line, password (a secret), confirm or
// editor (a full-screen editor)": the names, and what each one's
// parenthesis says ("" for none).
func listedKinds(s string) (names, glosses []string) {
	for s != "" {
		name := s
		if i := strings.IndexAny(s, " ,"); i >= 0 {
			name = s[:i]
		}
		s = s[len(name):]
		gloss := ""
		if strings.HasPrefix(s, " (") {
			gloss = parenthesized(s[1:])
			s = s[1+len(gloss)+2:]
		}
		names, glosses = append(names, name), append(glosses, gloss)
		s = strings.TrimPrefix(strings.TrimPrefix(s, ","), " ")
		s = strings.TrimPrefix(s, "or ")
	}
	return names, glosses
}
