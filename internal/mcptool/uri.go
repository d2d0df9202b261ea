package mcptool

import (
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A process's output is also served as MCP resources (package resources):
// its log at yieldshell://process/{process_id}/log and its terminal at
// .../screen. The URIs are built here, where both the tools (the
// resource_link in their answers) and the resources find them.
const (
	// URIPrefix starts every process resource's URI.
	URIPrefix = "yieldshell://process/"
	// ViewLog and ViewScreen end them.
	ViewLog    = "log"
	ViewScreen = "screen"
)

// ProcessURI is the URI of a process's log or screen (view); idOrName is
// escaped as one path segment ("." and ".." too, which a client that
// resolves dot segments would otherwise take for a step up).
func ProcessURI(idOrName, view string) string {
	seg := url.PathEscape(idOrName)
	if seg == "." || seg == ".." {
		seg = strings.ReplaceAll(seg, ".", "%2E")
	}
	return URIPrefix + seg + "/" + view
}

// LogLink is the resource_link an answer about a process carries to its
// log: resources/read returns what read returns, and a client can
// subscribe to it.
func LogLink(id, name string) *mcp.ResourceLink {
	title := id
	if name != "" {
		title = name + " (" + id + ")"
	}
	return &mcp.ResourceLink{URI: ProcessURI(id, ViewLog), Name: id + " log", Title: "Output of " + title,
		MIMEType: "text/plain"}
}
