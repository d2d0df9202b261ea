package mcptool

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	sjson "github.com/segmentio/encoding/json"
)

// typed is what mcp.AddTool does around a typed handler, with the same
// checks and the same answers, at a fraction of the cost on exec's path
// (issue 42): the SDK decodes the arguments four times (to a map, to
// check them; back to JSON; to In) with a 32 KB buffer each, and its
// answer three times (to JSON, to a map to check it, back to JSON), besides
// the text Add writes. Here the arguments are decoded to a map to be
// checked and then straight to In, and the answer is marshalled once, for
// both its text and its structured content. Where a shortcut could
// answer otherwise than the SDK (defaults in a schema, an argument Go
// decodes only through the map, such as 1000.0 for an integer), it takes
// the SDK's steps.
type typed[In any] struct {
	in, out     *jsonschema.Resolved
	inDefaults  bool // the input schema has defaults for the SDK to apply
	outDefaults bool
}

// sdkFlags is how the SDK decodes JSON: names match exactly.
const sdkFlags = sjson.DontMatchCaseInsensitiveStructFields

// newTyped checks t's calls against its input schema, and their answers
// against out (t's output schema, or one that accepts the same values).
func newTyped[In any](t *mcp.Tool, out *jsonschema.Schema) *typed[In] {
	in, ok := t.InputSchema.(*jsonschema.Schema)
	if !ok {
		panic(fmt.Sprintf("mcptool: input schema of %s is not a *jsonschema.Schema", t.Name))
	}
	if out == nil {
		panic(fmt.Sprintf("mcptool: output schema of %s is not a *jsonschema.Schema", t.Name))
	}
	ty := &typed[In]{inDefaults: hasDefault(in), outDefaults: hasDefault(out)}
	var err error
	if ty.in, err = in.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true}); err != nil {
		panic(fmt.Sprintf("mcptool: input schema of %s: %v", t.Name, err))
	}
	if ty.out, err = out.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true}); err != nil {
		panic(fmt.Sprintf("mcptool: output schema of %s: %v", t.Name, err))
	}
	return ty
}

// hasDefault reports whether ApplyDefaults could change a value of s: it
// fills in the defaults of properties, at every depth of properties.
func hasDefault(s *jsonschema.Schema) bool {
	for _, p := range s.Properties {
		if p != nil && (p.Default != nil || hasDefault(p)) {
			return true
		}
	}
	return false
}

// arguments checks a call's arguments against the input schema and
// decodes them; a refusal is the SDK's tool error, word for word.
func (ty *typed[In]) arguments(raw json.RawMessage) (In, *mcp.CallToolResult) {
	var in In
	v := map[string]any{}
	if len(raw) > 0 {
		if _, err := sjson.Parse(raw, &v, sdkFlags); err != nil {
			return in, refused(fmt.Errorf("validating \"arguments\": unmarshaling arguments: %w", err))
		}
	}
	var doc any = v
	if ty.inDefaults {
		if err := ty.in.ApplyDefaults(&doc); err != nil {
			return in, refused(fmt.Errorf("validating \"arguments\": applying schema defaults:\n%w", err))
		}
	}
	if err := ty.in.Validate(&doc); err != nil {
		return in, refused(fmt.Errorf("validating \"arguments\": %v", err))
	}
	if !ty.inDefaults && len(raw) > 0 {
		if _, err := sjson.Parse(raw, &in, sdkFlags); err == nil {
			return in, nil
		}
		in = *new(In) // what Parse set before it failed
	}
	// The SDK's way: the checked map, back to JSON, decoded to In.
	b, err := json.Marshal(doc)
	if err != nil {
		return in, refused(fmt.Errorf("validating \"arguments\": marshalling with defaults: %v", err))
	}
	if _, err := sjson.Parse(b, &in, sdkFlags); err != nil {
		return in, refused(err)
	}
	return in, nil
}

// answer is the result of a handler that returned res, out and err, as
// the SDK makes it: an error that is not a JSON-RPC one becomes a tool
// error, and out (checked against the output schema) is the structured
// content and, unless the handler set its own, the text.
func (ty *typed[In]) answer(res *mcp.CallToolResult, out any, err error) (*mcp.CallToolResult, error) {
	if err != nil {
		if we, ok := err.(*jsonrpc.Error); ok {
			return nil, we
		}
		return refused(err), nil
	}
	if res == nil {
		res = &mcp.CallToolResult{}
	}
	if res.InputRequests != nil {
		return res, nil // content and input requests never go together
	}
	text, err := JSON(out)
	if err != nil {
		return nil, fmt.Errorf("marshaling output: %w", err)
	}
	structured := json.RawMessage(text)
	var doc any
	if _, err := sjson.Parse(structured, &doc, sdkFlags); err != nil {
		return nil, fmt.Errorf("validating tool output: unmarshaling output: %w", err)
	}
	if ty.outDefaults {
		if err := ty.out.ApplyDefaults(&doc); err != nil {
			return nil, fmt.Errorf("validating tool output: applying schema defaults:\n%w", err)
		}
		if structured, err = json.Marshal(doc); err != nil {
			return nil, fmt.Errorf("validating tool output: marshalling with defaults: %v", err)
		}
	}
	if err := ty.out.Validate(&doc); err != nil {
		return nil, fmt.Errorf("validating tool output: %w", err)
	}
	res.StructuredContent = structured
	if !hasText(res.Content) {
		res.Content = append([]mcp.Content{&mcp.TextContent{Text: text}}, res.Content...)
	}
	return res, nil
}

// refused is a tool error saying err.
func refused(err error) *mcp.CallToolResult {
	var res mcp.CallToolResult
	res.SetError(err)
	return &res
}

// call is h's answer to req, as Add registers it with the SDK.
func (ty *typed[In]) call(ctx context.Context, req *mcp.CallToolRequest, h func(context.Context, *mcp.CallToolRequest, In) (*mcp.CallToolResult, any, error)) (*mcp.CallToolResult, error) {
	in, bad := ty.arguments(req.Params.Arguments)
	if bad != nil {
		return bad, nil
	}
	res, out, err := h(ctx, req, in)
	return ty.answer(res, out, err)
}
