package mcptool

import (
	"context"
	"regexp"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// validating is how the SDK starts the answer to arguments its input schema
// refuses; the rest quotes the agent's value.
const validating = `validating "arguments": `

// KindOnlyErrors rewrites the SDK's own refusals of a tool call, which quote
// what the agent sent (a schema check's value, an unknown argument's or
// tool's name), into ones that name only what kind of value was wrong and
// where the schema says what is right (issue 38): an answer never carries
// the agent's bytes back raw, whatever they hold.
func KindOnlyErrors() mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if method != "tools/call" {
				return res, err
			}
			if je, ok := err.(*jsonrpc.Error); ok && strings.HasPrefix(je.Message, "unknown tool ") {
				return res, &jsonrpc.Error{Code: je.Code, Message: "unknown tool: tools/list lists this server's tools"}
			}
			if r, ok := res.(*mcp.CallToolResult); ok && r.IsError && r.StructuredContent == nil && len(r.Content) == 1 {
				if tc, ok := r.Content[0].(*mcp.TextContent); ok && strings.HasPrefix(tc.Text, validating) {
					r.Content = []mcp.Content{&mcp.TextContent{Text: SchemaRefusal(tc.Text[len(validating):])}}
				}
			}
			return res, err
		}
	}
}

var wantType = regexp.MustCompile(`, want (?:one of )?(\[?"[a-z", ]+"\]?)$`)

// SchemaRefusal says what the schema validator's message msg found wrong,
// without the value it quotes: the argument (a name from the schema's
// path, never from the call) and the kind of failure.
func SchemaRefusal(msg string) string {
	where, rest := "the arguments", msg
	// "validating root: validating /properties/x: validating /$defs/Y: enum: ..."
	for strings.HasPrefix(rest, "validating ") {
		path, after, ok := strings.Cut(rest[len("validating "):], ": ")
		if !ok {
			break
		}
		if name, ok := strings.CutPrefix(path, "/properties/"); ok && where == "the arguments" {
			where = "argument " + strings.Split(name, "/")[0]
		}
		rest = after
	}
	kind, _, _ := strings.Cut(rest, ":")
	var why string
	switch {
	case strings.HasPrefix(rest, "unexpected additional properties "):
		why = "hold an argument the tool does not take"
	case kind == "enum" || kind == "const":
		why = "is not one of the values the tool's input schema lists"
	case kind == "type":
		why = "has the wrong JSON type"
		if m := wantType.FindStringSubmatch(rest); m != nil {
			why += " (want " + m[1] + ")"
		}
	case kind == "required":
		why = "lack a required argument"
		if _, names, ok := strings.Cut(rest, "missing properties: "); ok && safeNames.MatchString(names) {
			why += ": " + names
		}
	default:
		why = "does not match the input schema"
	}
	return "invalid arguments: " + where + " " + why + "; see the tool's input schema. Nothing was done."
}

var safeNames = regexp.MustCompile(`^\[("[A-Za-z0-9_]+" ?)+\]$`)
