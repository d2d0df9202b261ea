package resources

import (
	"context"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yieldshell/yieldshell/internal/session"
)

// maxCompletions is the most values one completion answers (the
// protocol's limit).
const maxCompletions = 100

// Complete is the server's completion/complete handler: for the
// process_id of either template it offers the names and ids of the
// processes this server knows, newest first, that start with what was
// typed (names compare as the tools compare them). Anything else gets no
// values.
func (h *Hub) Complete(_ context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	res := &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{}}}
	ref := req.Params.Ref
	if h.m == nil || ref == nil || ref.Type != "ref/resource" || req.Params.Argument.Name != "process_id" || !ourTemplate(ref.URI) {
		return res, nil
	}
	typed := req.Params.Argument.Value
	asName := session.NormalizeName(typed)
	seen := make(map[string]bool)
	var all []string
	offer := func(v string) {
		if v != "" && !seen[v] {
			seen[v] = true
			all = append(all, v)
		}
	}
	for _, p := range h.m.List() {
		if p.Name != "" && strings.HasPrefix(p.Name, asName) {
			offer(p.Name)
		}
		if strings.HasPrefix(p.ID, typed) {
			offer(p.ID)
		}
	}
	res.Completion.Total = len(all)
	if len(all) > maxCompletions {
		all, res.Completion.HasMore = all[:maxCompletions], true
	}
	res.Completion.Values = all
	return res, nil
}

// ourTemplate reports whether uri is one of the Hub's templates.
func ourTemplate(uri string) bool {
	for _, t := range []string{logTemplate().URITemplate, screenTemplate().URITemplate} {
		if uri == t || uri == strings.TrimSuffix(t, "{?since_seq}") {
			return true
		}
	}
	return false
}
