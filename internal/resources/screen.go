package resources

import (
	"context"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yieldshell/yieldshell/internal/mcptool"
)

func screenTemplate() *mcp.ResourceTemplate {
	return &mcp.ResourceTemplate{
		URITemplate: mcptool.URIPrefix + "{process_id}/" + mcptool.ViewScreen + "{?since_seq}",
		Name:        "process-screen",
		Title:       "A process's terminal",
		Description: `The terminal of a process started with tty: true, as a person would see it now, as the read tool returns it with view "screen": {process_id} is its process_id or its name. The text is the visible rows, one per line; _meta["` + MetaKey + `"] has the rest of read's answer (screen: cursor, size, alt_screen; status, input wait ...). Subscriptions are told what the log's are.`,
		MIMEType:    "text/plain",
		Icons:       mcptool.Icons(),
	}
}

// readScreen answers resources/read for a screen URI.
func (h *Hub) readScreen(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	t, p, err := h.resolve(uri, mcptool.ViewScreen)
	if err != nil {
		return nil, err
	}
	out, ok := h.reader.Screen(p, t.since)
	if !ok {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
			Message: "the screen resource needs a process started with tty: true; read its log instead"}
	}
	meta, err := answerMeta(out)
	if err != nil {
		return nil, err
	}
	text := strings.Join(out.Screen.Lines, "\n")
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{
		{URI: uri, MIMEType: "text/plain", Text: text, Meta: meta}}}, nil
}
