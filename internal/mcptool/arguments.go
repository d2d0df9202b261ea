package mcptool

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yieldshell/yieldshell/internal/spell"
)

// sdkArgumentsPrefix starts the SDK's answer to arguments that do not fit
// a tool's input schema: a tool error in the validator's words
// ("validating root: required: missing properties: [...]").
const sdkArgumentsPrefix = `validating "arguments": `

var (
	reProperty   = regexp.MustCompile(`/properties/([^/:]+)`)
	reMissing    = regexp.MustCompile(`missing properties: (\[.*?\])`)
	reEnum       = regexp.MustCompile(`enum: (.*) does not equal any of: \[(.*)\]`)
	reType       = regexp.MustCompile(`type: .* has type "(\w+)", want (?:one of )?"([^"]+)"`)
	reAdditional = regexp.MustCompile(`unexpected additional properties (\[.*?\])`)
)

// PlainArguments is a receiving middleware for tools/call. An argument
// given as null counts as not given (the input schemas give each
// property one type, and some clients send null for every optional
// argument). It also rewrites the SDK's answer
// to tool arguments that do not fit the input schema into plain words
// for the model: which argument, what is wrong with it, the nearest valid
// name for a misspelled one, and a valid call to copy. Nothing the agent
// sent is repeated (a value may hold anything): names come from the
// schema. It stays a tool
// error (the agent can fix it), never a protocol error.
func PlainArguments() mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			call, isCall := req.(*mcp.CallToolRequest)
			if isCall && call.Params != nil {
				call.Params.Arguments = dropNulls(call.Params.Arguments)
			}
			res, err := next(ctx, method, req)
			ctr, ok := res.(*mcp.CallToolResult)
			if err != nil || !ok || !isCall || !ctr.IsError || len(ctr.Content) != 1 {
				return res, err
			}
			tc, ok := ctr.Content[0].(*mcp.TextContent)
			if !ok || !strings.HasPrefix(tc.Text, sdkArgumentsPrefix) {
				return res, err
			}
			schema := inputSchema(ctx, next, call)
			if schema == nil {
				return res, err
			}
			tc.Text = explainArguments(call.Params.Name, schema, strings.TrimPrefix(tc.Text, sdkArgumentsPrefix))
			return res, err
		}
	}
}

// dropNulls removes the null members of a JSON object; anything else is
// returned as it is.
func dropNulls(args json.RawMessage) json.RawMessage {
	if !strings.Contains(string(args), "null") {
		return args
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(args, &m) != nil {
		return args
	}
	n := len(m)
	for k, v := range m {
		if string(v) == "null" {
			delete(m, k)
		}
	}
	if len(m) == n {
		return args
	}
	b, err := json.Marshal(m)
	if err != nil {
		return args
	}
	return b
}

// OneType gives every property of s (recursively) one type where the Go
// type made it nullable (["null", "integer"] for a pointer): the schema
// dialect allows type arrays, but clients' validators and models read
// one type better, and Inspector's --strict warns about each (issue 41).
// A null argument is dropped before validation (PlainArguments).
func OneType(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if len(s.Types) == 2 && slices.Contains(s.Types, "null") {
		for _, t := range s.Types {
			if t != "null" {
				s.Type = t
			}
		}
		s.Types = nil
	}
	for _, p := range s.Properties {
		OneType(p)
	}
	for _, d := range s.Defs {
		OneType(d)
	}
	OneType(s.Items)
	OneType(s.AdditionalProperties)
}

// NullAsBranch rewrites, in an output schema, each nullable type array
// (["null", "integer"] for a pointer the answer sends as null) as anyOf
// branches of one type each, keeping what the property says at the top:
// the same values validate, and clients that read one type per schema
// (Inspector --strict warns about each array) read every branch.
func NullAsBranch(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	for _, p := range s.Properties {
		NullAsBranch(p)
	}
	for _, d := range s.Defs {
		NullAsBranch(d)
	}
	NullAsBranch(s.Items)
	NullAsBranch(s.AdditionalProperties)
	if len(s.Types) != 2 || !slices.Contains(s.Types, "null") {
		return
	}
	branch := *s
	branch.Types, branch.Title, branch.Description, branch.Default = nil, "", "", nil
	for _, t := range s.Types {
		if t != "null" {
			branch.Type = t
		}
	}
	*s = jsonschema.Schema{Title: s.Title, Description: s.Description, Default: s.Default,
		AnyOf: []*jsonschema.Schema{{Type: "null"}, &branch}}
}

// inputSchema finds the called tool's input schema in the server's own
// tools/list (only on this error path).
func inputSchema(ctx context.Context, next mcp.MethodHandler, call *mcp.CallToolRequest) *jsonschema.Schema {
	ss, ok := call.GetSession().(*mcp.ServerSession)
	if !ok {
		return nil
	}
	res, err := next(ctx, "tools/list", &mcp.ListToolsRequest{Session: ss, Params: &mcp.ListToolsParams{}})
	list, ok := res.(*mcp.ListToolsResult)
	if err != nil || !ok {
		return nil
	}
	for _, t := range list.Tools {
		if t.Name != call.Params.Name {
			continue
		}
		b, err := json.Marshal(t.InputSchema)
		if err != nil {
			return nil
		}
		var s jsonschema.Schema
		if json.Unmarshal(b, &s) != nil {
			return nil
		}
		return &s
	}
	return nil
}

// explainArguments says in plain words what the validator's complaint
// (why) means for tool's arguments, with an example call.
func explainArguments(tool string, schema *jsonschema.Schema, why string) string {
	var msg string
	prop := ""
	if m := reProperty.FindStringSubmatch(why); m != nil {
		prop = m[1]
	}
	switch {
	case reMissing.MatchString(why):
		var names []string
		_ = json.Unmarshal([]byte(reMissing.FindStringSubmatch(why)[1]), &names)
		var parts []string
		for _, n := range names {
			parts = append(parts, fmt.Sprintf("%s (%s)", n, describe(schema, n)))
		}
		msg = fmt.Sprintf("%s needs %s", tool, strings.Join(parts, " and "))
	case reAdditional.MatchString(why):
		msg = explainUnknown(tool, schema, why)
	case reEnum.MatchString(why):
		m := reEnum.FindStringSubmatch(why)
		valid := strings.Fields(m[2])
		msg = fmt.Sprintf("%s: not one of its values", prop)
		if near := spell.Nearest(m[1], valid); near != "" {
			msg += fmt.Sprintf("; did you mean %q?", near)
		} else if len(valid) <= 8 {
			msg += "; use one of " + strings.Join(valid, ", ")
		} else {
			msg += " (the tool's input schema lists them)"
		}
	case reType.MatchString(why):
		m := reType.FindStringSubmatch(why)
		want := strings.TrimPrefix(strings.TrimPrefix(m[2], "null, "), "null")
		msg = fmt.Sprintf("%s must be %s, not %s", prop, article(want), article(m[1]))
		if ex, ok := example(schema, prop); ok {
			b, _ := json.Marshal(ex)
			msg += ", such as " + string(b)
		}
	default:
		msg = fmt.Sprintf("the arguments do not fit %s's input schema", tool)
		if prop != "" {
			msg += " (argument " + prop + ")"
		}
	}
	b, _ := json.Marshal(exampleCall(schema))
	if !strings.HasSuffix(msg, "?") {
		msg += "."
	}
	return msg + " Nothing was done. A valid call looks like " + string(b)
}

// explainUnknown says which arguments tool does not take, never repeating
// their names, and which it does.
func explainUnknown(tool string, schema *jsonschema.Schema, why string) string {
	var names []string
	_ = json.Unmarshal([]byte(reAdditional.FindStringSubmatch(why)[1]), &names)
	msg := fmt.Sprintf("%s takes no argument by that name", tool)
	if len(names) > 1 {
		msg = fmt.Sprintf("%s takes no arguments by %d of those names", tool, len(names))
	}
	var near []string
	for _, n := range names {
		if m := spell.Nearest(n, propertyNames(schema)); m != "" {
			near = append(near, fmt.Sprintf("%q", m))
		}
	}
	if len(near) > 0 {
		msg += " (did you mean " + strings.Join(near, ", ") + "?)"
	}
	return msg + "; its arguments are " + strings.Join(propertyNames(schema), ", ")
}

// article names a JSON type for a person: "an array (a list)".
func article(t string) string {
	switch t {
	case "array":
		return "an array (a list)"
	case "object":
		return "an object"
	case "integer":
		return "an integer"
	case "":
		return "a value"
	}
	return "a " + t
}

func propertyNames(s *jsonschema.Schema) []string {
	var names []string
	for n := range s.Properties {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// describe is the first sentence of a property's description.
func describe(s *jsonschema.Schema, name string) string {
	p := s.Properties[name]
	if p == nil || p.Description == "" {
		return "required"
	}
	d, _, _ := strings.Cut(p.Description, ". ")
	return strings.TrimSuffix(d, ".")
}

// exampleCall is a call with every required argument, each an example.
func exampleCall(s *jsonschema.Schema) map[string]any {
	call := map[string]any{}
	for _, n := range s.Required {
		if v, ok := example(s, n); ok {
			call[n] = v
		}
	}
	return call
}

// example is a valid value for property name of s.
func example(s *jsonschema.Schema, name string) (any, bool) {
	switch name {
	case "process_id":
		return "proc_1a2b3c4d5e6f", true
	case "command":
		return "ls -la", true
	}
	p := s.Properties[name]
	if p == nil {
		return nil, false
	}
	return exampleOf(s, p), true
}

func exampleOf(root, p *jsonschema.Schema) any {
	if name, ok := strings.CutPrefix(p.Ref, "#/$defs/"); ok && root.Defs[name] != nil {
		p = root.Defs[name]
	}
	if len(p.Enum) > 0 {
		if slices.Contains(p.Enum, any("NONE")) {
			return "NONE"
		}
		return p.Enum[0]
	}
	typ := p.Type
	if typ == "" {
		for _, t := range p.Types {
			if t != "null" {
				typ = t
			}
		}
	}
	switch typ {
	case "array":
		if p.Items != nil {
			return []any{exampleOf(root, p.Items)}
		}
		return []any{}
	case "object":
		return map[string]any{}
	case "integer", "number":
		return 1000
	case "boolean":
		return true
	}
	return "..."
}
