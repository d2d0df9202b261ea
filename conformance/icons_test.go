package conformance

import (
	"encoding/base64"
	"strings"
	"testing"
)

// Spec: issue 34 item 6: "Icons for the server and the tools, in
// serverInfo, tools/list and server.json."
func TestIcons(t *testing.T) {
	for _, toolset := range []string{"default", "all"} {
		t.Run(toolset, func(t *testing.T) {
			forEachProtocol(t, []string{"YIELDSHELL_TOOLSET=" + toolset}, func(t *testing.T, s *server) {
				info := s.cs.InitializeResult().ServerInfo
				if len(info.Icons) != 1 || !strings.HasPrefix(info.Icons[0].Source, "data:image/svg+xml;base64,") {
					t.Fatalf("serverInfo icons = %+v", info.Icons)
				}
				svg, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(info.Icons[0].Source, "data:image/svg+xml;base64,"))
				if err != nil || !strings.HasPrefix(string(svg), "<svg") || strings.Contains(string(svg), "http://example") {
					t.Errorf("icon is not an inline SVG: %v %.80q", err, svg)
				}
				res, err := s.cs.ListTools(t.Context(), nil)
				if err != nil {
					t.Fatal(err)
				}
				for _, tool := range res.Tools {
					if len(tool.Icons) != 1 || tool.Icons[0].Source != info.Icons[0].Source {
						t.Errorf("tool %s icons = %v", tool.Name, tool.Icons)
					}
				}
			})
		})
	}
}
