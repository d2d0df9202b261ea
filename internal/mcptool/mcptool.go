// Package mcptool holds what every tool of both toolsets does the same way:
// declare its hints, answer a mistake the agent can fix, and register
// itself so that the text the model reads is plain JSON. It has no state.
package mcptool

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Kind is what a tool does to the world, which decides its hints: one named
// combination per kind, so no hint is left to the protocol's defaults
// (destructive and open-world default to true when absent) and no call site
// lines up four booleans.
type Kind int

const (
	// Reads only looks: read-only and idempotent.
	Reads Kind = iota
	// Runs starts commands, which may do anything: destructive, not
	// idempotent, open world.
	Runs
	// Types sends input to a running process: destructive, not idempotent.
	Types
	// Ends stops or forgets processes: destructive and idempotent.
	Ends
)

// Annotations builds the hints of a tool of kind k.
func Annotations(title string, k Kind) *mcp.ToolAnnotations {
	a := &mcp.ToolAnnotations{Title: title, DestructiveHint: new(k != Reads), OpenWorldHint: new(k == Runs)}
	a.ReadOnlyHint = k == Reads
	a.IdempotentHint = k == Reads || k == Ends
	return a
}

// Error returns out as a tool result marked as an error: the agent sees the
// structured fields and can act on them.
func Error[Out any](out Out) (*mcp.CallToolResult, Out, error) {
	return &mcp.CallToolResult{IsError: true}, out, nil
}

// Add registers a typed tool as mcp.AddTool does (the same checks and
// answers, at less cost: see typed), except that the answer's text content
// is its JSON without HTML escaping: the SDK fills it with json.Marshal,
// which writes <, > and & as \u003c, \u003e and \u0026, and
// clients hand that text to the model as it is. A handler that sets its
// own text content, or answers with input requests (elicitation), keeps
// it; other content it sets (a resource_link) follows the text. An error
// returned as error is the SDK's. A tool without icons gets the server's.
//
// Input requests to a client that cannot retry a call (one that
// initialized at a protocol before 2026-07-28) are fulfilled here, as the
// SDK would, but a request that fails is left out of the responses rather
// than made the call's JSON-RPC error (-32603): the handler, called again
// with what came back, answers "could not ask" as a tool result.
func Add[In, Out any](s *mcp.Server, t *mcp.Tool, h mcp.ToolHandlerFor[In, Out]) {
	if t.Icons == nil {
		t.Icons = Icons()
	}
	if t.InputSchema == nil {
		in, err := jsonschema.For[In](nil)
		if err != nil {
			panic(fmt.Sprintf("mcptool: input schema of %s: %v", t.Name, err))
		}
		t.InputSchema = in
	}
	if in, ok := t.InputSchema.(*jsonschema.Schema); ok {
		OneType(in)
	}
	if t.OutputSchema == nil {
		out, err := jsonschema.For[Out](nil)
		if err != nil {
			panic(fmt.Sprintf("mcptool: output schema of %s: %v", t.Name, err))
		}
		t.OutputSchema = out
	}
	// Answers are checked against the schema as jsonschema made it: the
	// one clients get (NullAsBranch) lets the same values through, but
	// each non-null value fails its null branch first, and the failure's
	// message prints the value (ps's answer: a third of its time).
	var check *jsonschema.Schema
	if out, ok := t.OutputSchema.(*jsonschema.Schema); ok {
		check = out.CloneSchemas()
		NullAsBranch(out)
	}
	ty := newTyped[In](t, check)
	s.AddTool(t, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return ty.call(ctx, req, func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, any, error) {
			res, out, err := h(ctx, req, in)
			if err == nil && res != nil && res.InputRequests != nil && !retries(req.Session) {
				req.Params.InputResponses = fulfil(ctx, req.Session, res.InputRequests)
				req.Params.RequestState = res.RequestState
				res, out, err = h(ctx, req, in)
			}
			if err == nil && (res == nil || res.InputRequests == nil) {
				recordOutcome(ctx, out)
			}
			return res, out, err
		})
	})
}

// retries reports whether ss's client retries calls with input responses
// itself (the 2026-07-28 protocol, where a client need not initialize).
func retries(ss *mcp.ServerSession) bool {
	if ss == nil {
		return true
	}
	p := ss.InitializeParams()
	return p == nil || p.ProtocolVersion >= "2026-07-28"
}

// fulfil sends each input request to the client and gathers the answers;
// a request that fails has none.
func fulfil(ctx context.Context, ss *mcp.ServerSession, reqs mcp.InputRequestMap) mcp.InputResponseMap {
	out := mcp.InputResponseMap{}
	for k, r := range reqs {
		var (
			res mcp.InputResponse
			err error
		)
		switch p := r.(type) {
		case *mcp.ElicitParams:
			res, err = ss.Elicit(ctx, p)
		case *mcp.ListRootsParams:
			res, err = ss.ListRoots(ctx, p)
		default:
			continue
		}
		if err == nil {
			out[k] = res
		}
	}
	return out
}

// hasText reports whether content holds text.
func hasText(content []mcp.Content) bool {
	for _, c := range content {
		if _, ok := c.(*mcp.TextContent); ok {
			return true
		}
	}
	return false
}

// Linked is a result whose text (the answer's JSON, filled in by Add) is
// followed by links.
func Linked(links ...*mcp.ResourceLink) *mcp.CallToolResult {
	res := &mcp.CallToolResult{Content: make([]mcp.Content, 0, len(links))}
	for _, l := range links {
		res.Content = append(res.Content, l)
	}
	return res
}

// JSON is v's JSON as a model should read it: <, > and & as they are.
func JSON(v any) (string, error) {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

// RecoverPanics turns a panic in a handler into an error answer instead of
// a dead server (and every process with it).
func RecoverPanics(log *slog.Logger) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (res mcp.Result, err error) {
			defer func() {
				if r := recover(); r != nil {
					log.Error("handler panicked", "method", method, "panic", r, "stack", string(debug.Stack()))
					if method == "tools/call" {
						res = &mcp.CallToolResult{IsError: true, Content: []mcp.Content{
							&mcp.TextContent{Text: fmt.Sprintf("internal error: %v", r)}}}
						err = nil
						return
					}
					err = fmt.Errorf("internal error: %v", r)
				}
			}()
			return next(ctx, method, req)
		}
	}
}
