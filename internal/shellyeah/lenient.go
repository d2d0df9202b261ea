package shellyeah

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yieldshell/yieldshell/internal/mcptool"
)

// Ignored is embedded in every answer of this toolset: the peer's clients
// send arguments its tools never declared (start_shell gets
// verification_pattern, for one), and the peer drops them without a word.
// Here they are accepted too, and named.
type Ignored struct {
	IgnoredArguments []string `json:"ignored_arguments,omitempty" jsonschema:"arguments this tool does not take; they were accepted and had no effect"`
}

func (i *Ignored) ignore(names []string) { i.IgnoredArguments = names }

// addLenient registers a tool whose input schema accepts arguments it does
// not declare; the answer names them in ignored_arguments.
func addLenient[In, Out any](s *mcp.Server, t *mcp.Tool, h mcp.ToolHandlerFor[In, Out]) {
	schema, err := jsonschema.For[In](nil)
	if err != nil {
		panic(fmt.Sprintf("shellyeah: input schema of %s: %v", t.Name, err))
	}
	schema.AdditionalProperties = nil
	t.InputSchema = schema
	mcptool.Add(s, t, func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, Out, error) {
		res, out, err := h(ctx, req, in)
		if names := unknownArguments(req.Params.Arguments, schema); len(names) > 0 {
			if i, ok := any(&out).(interface{ ignore([]string) }); ok {
				i.ignore(names)
			}
		}
		return res, out, err
	})
}

// unknownArguments lists, sorted, the keys of args that schema does not
// declare. args has already passed validation, so it is an object.
func unknownArguments(args json.RawMessage, schema *jsonschema.Schema) []string {
	var m map[string]json.RawMessage
	if json.Unmarshal(args, &m) != nil {
		return nil
	}
	var names []string
	for k := range m {
		if _, ok := schema.Properties[k]; !ok {
			names = append(names, k)
		}
	}
	slices.Sort(names)
	return names
}
