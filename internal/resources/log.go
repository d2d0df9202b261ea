package resources

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yieldshell/yieldshell/internal/mcptool"
	"github.com/yieldshell/yieldshell/internal/wire"
)

// MetaKey is the key under which a resource's contents carry the read
// answer they were cut from (next_seq, status, omitted, binary ...): the
// text is its stdout, the rest is here.
const MetaKey = "yieldshell/read"

func logTemplate() *mcp.ResourceTemplate {
	return &mcp.ResourceTemplate{
		URITemplate: mcptool.URIPrefix + "{process_id}/" + mcptool.ViewLog + "{?since_seq}",
		Name:        "process-log",
		Title:       "A process's output",
		Description: `The output log of a process this server started, running or finished, as the read tool returns it: {process_id} is its process_id or its name; since_seq (optional) returns only what came after that position, as read's since_seq does. The text is the output (binary output is a blob); _meta["` + MetaKey + `"] has the rest of read's answer (next_seq, status, exit_code, omitted, ...). Subscribe to be told when new output arrives (at most every 250 ms), when the process waits for input and when it ends.`,
		MIMEType:    "text/plain",
		Icons:       mcptool.Icons(),
	}
}

// readLog answers resources/read for a log URI.
func (h *Hub) readLog(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	t, p, err := h.resolve(uri, mcptool.ViewLog)
	if err != nil {
		return nil, err
	}
	out, snap := h.reader.Log(p, t.since)
	meta, err := answerMeta(out)
	if err != nil {
		return nil, err
	}
	if out.Binary {
		c := []*mcp.ResourceContents{{URI: uri, MIMEType: "application/octet-stream", Blob: nonNil(snap.Stdout), Meta: meta}}
		if len(snap.Stderr) > 0 {
			c = append(c, &mcp.ResourceContents{URI: uri, MIMEType: "application/octet-stream", Blob: snap.Stderr,
				Meta: mcp.Meta{"stream": "stderr"}})
		}
		return &mcp.ReadResourceResult{Contents: c}, nil
	}
	c := []*mcp.ResourceContents{{URI: uri, MIMEType: "text/plain", Text: deref(out.Stdout), Meta: meta}}
	if e := deref(out.Stderr); e != "" {
		c = append(c, &mcp.ResourceContents{URI: uri, MIMEType: "text/plain", Text: e, Meta: mcp.Meta{"stream": "stderr"}})
	}
	return &mcp.ReadResourceResult{Contents: c}, nil
}

// answerMeta is the _meta of a resource's first contents: the read answer
// but its text, which is the contents.
func answerMeta(out wire.OutputOut) (mcp.Meta, error) {
	out.Stdout, out.Stderr = nil, nil
	b, err := json.Marshal(out)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	return mcp.Meta{MetaKey: m}, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// nonNil keeps an empty blob a blob.
func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}
