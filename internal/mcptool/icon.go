package mcptool

import (
	"encoding/base64"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// iconSVG is yieldshell's icon, made here: a terminal window with a prompt
// and a cursor. It is served inline (a data: URI), so no client fetches
// anything from anywhere to show it.
const iconSVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect x="4" y="8" width="56" height="48" rx="6" fill="#1e2430"/><rect x="4" y="8" width="56" height="9" rx="6" fill="#3b4455"/><path d="M14 28l9 7-9 7" fill="none" stroke="#7ee787" stroke-width="4" stroke-linecap="round" stroke-linejoin="round"/><rect x="28" y="39" width="16" height="4" rx="2" fill="#e6edf3"/></svg>`

// IconURI is the icon as a data: URI, as serverInfo, tools/list and
// server.json carry it.
func IconURI() string {
	return "data:image/svg+xml;base64," + base64.StdEncoding.EncodeToString([]byte(iconSVG))
}

// Icons is the icon list of the server and of every tool.
func Icons() []mcp.Icon {
	return []mcp.Icon{{Source: IconURI(), MIMEType: "image/svg+xml", Sizes: []string{"any"}}}
}
