package resources

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yieldshell/yieldshell/internal/mcptool"
)

// maxRefLen bounds the process id or name in a URI: ids are 17 bytes and
// names are short; anything longer names nothing.
const maxRefLen = 256

// target is what a resource URI names.
type target struct {
	ref   string // a process id or name, unescaped
	view  string // mcptool.ViewLog or mcptool.ViewScreen
	since *int64 // the since_seq query parameter, if given
}

// parse reads a resource URI: the prefix, one path segment naming the
// process (escaped as a URI path segment), the view, and at most the
// query parameter since_seq, given once, a decimal int64. Anything else is
// an invalid-params error that says what is wrong.
func parse(uri string) (target, error) {
	rest, ok := strings.CutPrefix(uri, mcptool.URIPrefix)
	if !ok {
		return target{}, invalid(uri, "it does not start with "+mcptool.URIPrefix)
	}
	if strings.Contains(rest, "#") {
		return target{}, invalid(uri, "it has a fragment")
	}
	path, query, _ := strings.Cut(rest, "?")
	seg, view, ok := strings.Cut(path, "/")
	if !ok || strings.Contains(view, "/") || view != mcptool.ViewLog && view != mcptool.ViewScreen {
		return target{}, invalid(uri, "the path must be {process_id}/log or {process_id}/screen")
	}
	ref, err := url.PathUnescape(seg)
	switch {
	case err != nil:
		return target{}, invalid(uri, "the process id is not properly escaped")
	case ref == "":
		return target{}, invalid(uri, "the process id is empty")
	case len(ref) > maxRefLen:
		return target{}, invalid(uri, fmt.Sprintf("the process id is longer than %d bytes", maxRefLen))
	}
	t := target{ref: ref, view: view}
	q, err := url.ParseQuery(query)
	if err != nil {
		return target{}, invalid(uri, "the query is not properly escaped")
	}
	for k, vs := range q {
		if k != "since_seq" {
			return target{}, invalid(uri, "the only query parameter is since_seq")
		}
		if len(vs) != 1 {
			return target{}, invalid(uri, "since_seq is given more than once")
		}
		n, err := strconv.ParseInt(vs[0], 10, 64)
		if err != nil {
			return target{}, invalid(uri, "since_seq is not an integer (a position from next_seq)")
		}
		t.since = &n
	}
	return t, nil
}

// invalid is the error for a URI that names nothing we serve. The URI is
// quoted, and cut short when long: it is the client's input.
// CodeNotFound is resource-not-found as docs/tools.md promises and
// clients written before SEP-2164 expect: -32002 (the SDK now answers
// -32602 with "Resource not found", which says neither what was missing
// nor what to do).
const CodeNotFound = -32002

// NoTemplate is a receiving middleware that gives the SDK's answer to a
// resources/read URI matching none of this server's templates
// (-32602 "Resource not found") the reason docs/tools.md promises: which
// URIs the server serves.
func NoTemplate() mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			var je *jsonrpc.Error
			if method == "resources/read" && errors.As(err, &je) && je.Code == jsonrpc.CodeInvalidParams && je.Message == "Resource not found" {
				uri := ""
				if r, ok := req.(*mcp.ReadResourceRequest); ok && r.Params != nil {
					uri = r.Params.URI
				}
				return res, invalid(uri, "this server serves only yieldshell://process/{process_id}/log and yieldshell://process/{process_id}/screen (resources/list and resources/templates/list name them)")
			}
			return res, err
		}
	}
}

// notFound answers a URI that parses but names no process.
func notFound(uri string) error {
	b, _ := json.Marshal(map[string]string{"uri": uri})
	return &jsonrpc.Error{Code: CodeNotFound, Data: b,
		Message: "resource not found: this server has no process by that id or name (it ended and was cleaned up, or never ran); ps and resources/list name the ones it has"}
}

func invalid(uri, why string) error {
	if len(uri) > 120 {
		uri = uri[:120] + "..."
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("invalid resource URI %q: %s", uri, why)}
}
