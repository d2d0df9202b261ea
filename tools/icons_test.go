package tools

import (
	"encoding/json"
	"os"
	"testing"
)

// server.json carries the icon the server serves.
func TestServerJSONIcon(t *testing.T) {
	b, err := os.ReadFile("../server.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Icons []struct{ Src, MimeType string }
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	want := Icons()[0]
	if len(doc.Icons) != 1 || doc.Icons[0].Src != want.Source || doc.Icons[0].MimeType != want.MIMEType {
		t.Errorf("server.json icons = %+v, want the served icon %s", doc.Icons, want.Source)
	}
}
