package tools

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The tools reference (docs/tools.md) lies between these markers and is generated
// from the golden files; checkToolsReference keeps it in sync.
const (
	refBegin = "<!-- tools-reference:begin (generated from tools/testdata/tools by go test ./tools -update; do not edit) -->"
	refEnd   = "<!-- tools-reference:end -->"
)

const refPath = "../docs/tools.md"

// checkToolsReference fails when docs/tools.md differs from
// what the golden files say; with -update it rewrites it.
func checkToolsReference(t *testing.T) {
	t.Helper()
	ref, err := toolsReference(filepath.Join("testdata", "tools"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(refPath)
	if err != nil {
		t.Fatal(err)
	}
	before, rest, ok1 := strings.Cut(string(doc), refBegin+"\n")
	_, after, ok2 := strings.Cut(rest, refEnd)
	if !ok1 || !ok2 {
		t.Fatalf("docs/tools.md lacks the markers of the tools reference:\n%s\n%s", refBegin, refEnd)
	}
	want := before + refBegin + "\n" + ref + refEnd + after
	if want == string(doc) {
		return
	}
	if *update {
		if err := os.WriteFile(refPath, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("the tools reference in docs/tools.md is out of date with tools/testdata/tools; run go test ./tools -update")
}

// goldenTool is what the reference needs of a golden file.
type goldenTool struct {
	Name        string `json:"name"`
	Title       string `json:"title"`
	Description string `json:"description"`
	Annotations struct {
		ReadOnly    bool  `json:"readOnlyHint"`
		Destructive *bool `json:"destructiveHint"`
		Idempotent  bool  `json:"idempotentHint"`
		OpenWorld   *bool `json:"openWorldHint"`
	} `json:"annotations"`
	InputSchema  schema `json:"inputSchema"`
	OutputSchema schema `json:"outputSchema"`
}

type schema struct {
	Type        any               `json:"type"`
	Description string            `json:"description"`
	Properties  map[string]schema `json:"properties"`
	Required    []string          `json:"required"`
	Items       *schema           `json:"items"`
	Enum        []any             `json:"enum"`
	Ref         string            `json:"$ref"`
	Defs        map[string]schema `json:"$defs"`
}

// toolsReference renders the golden files as Markdown: exec first, then
// the other tools by name.
func toolsReference(dir string) (string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return "", err
	}
	var tools []goldenTool
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return "", err
		}
		var g goldenTool
		if err := json.Unmarshal(b, &g); err != nil {
			return "", fmt.Errorf("%s: %w", f, err)
		}
		tools = append(tools, g)
	}
	slices.SortFunc(tools, func(a, b goldenTool) int {
		if (a.Name == "exec") != (b.Name == "exec") {
			if a.Name == "exec" {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Name, b.Name)
	})
	var sb strings.Builder
	for _, g := range tools {
		a := g.Annotations
		fmt.Fprintf(&sb, "\n#### `%s` — %s\n\n", g.Name, g.Title)
		fmt.Fprintf(&sb, "read-only: %s · destructive: %s · idempotent: %s · open-world: %s\n\n",
			yesNo(a.ReadOnly), yesNo(a.Destructive == nil || *a.Destructive), yesNo(a.Idempotent), yesNo(a.OpenWorld == nil || *a.OpenWorld))
		sb.WriteString(strings.TrimSpace(g.Description) + "\n\n")
		sb.WriteString("| parameter | type | description |\n|---|---|---|\n")
		writeFields(&sb, g.InputSchema, true)
		sb.WriteString("\n| answer field | type | description |\n|---|---|---|\n")
		writeFields(&sb, g.OutputSchema, false)
	}
	return sb.String(), nil
}

func writeFields(sb *strings.Builder, s schema, input bool) {
	names := slices.Clone(s.Required)
	var rest []string
	for k := range s.Properties {
		if !slices.Contains(names, k) {
			rest = append(rest, k)
		}
	}
	slices.Sort(rest)
	for _, n := range append(names, rest...) {
		p := s.Properties[n]
		if p.Items != nil && p.Items.Ref != "" {
			def := s.Defs[strings.TrimPrefix(p.Items.Ref, "#/$defs/")]
			p.Items = &def
		}
		name := "`" + n + "`"
		if input && slices.Contains(s.Required, n) {
			name += " (required)"
		}
		desc := p.Description
		if p.Items != nil && len(p.Items.Enum) > 0 {
			var vs []string
			for _, v := range p.Items.Enum {
				vs = append(vs, fmt.Sprint(v))
			}
			desc += " One or more of: " + strings.Join(vs, ", ") + "."
		}
		fmt.Fprintf(sb, "| %s | %s | %s |\n", name, typeName(p), cell(desc))
	}
}

// typeName renders a schema type: "integer", "string[]", "object"; null
// (an optional value) is left out.
func typeName(s schema) string {
	var ts []string
	switch t := s.Type.(type) {
	case string:
		ts = []string{t}
	case []any:
		for _, x := range t {
			if x != "null" {
				ts = append(ts, fmt.Sprint(x))
			}
		}
	}
	for i, t := range ts {
		if t == "array" && s.Items != nil {
			ts[i] = typeName(*s.Items) + "[]"
		}
	}
	return strings.Join(ts, " or ")
}

func cell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	return strings.ReplaceAll(strings.TrimSpace(s), "\n", "<br>")
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
