package resources

import (
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/yieldshell/yieldshell/internal/mcptool"
)

func TestParse(t *testing.T) {
	n := func(v int64) *int64 { return &v }
	for _, c := range []struct {
		uri   string
		ref   string
		view  string
		since *int64
		bad   string // a piece of the error, "" when valid
	}{
		{uri: "yieldshell://process/proc_0123456789ab/log", ref: "proc_0123456789ab", view: "log"},
		{uri: "yieldshell://process/web/screen", ref: "web", view: "screen"},
		{uri: "yieldshell://process/My%20Server/log", ref: "My Server", view: "log"},
		{uri: "yieldshell://process/a%2Fb/log", ref: "a/b", view: "log"},
		{uri: "yieldshell://process/../log", ref: "..", view: "log"}, // a name like any other: it is looked up, never followed
		{uri: "yieldshell://process/web/log?since_seq=42", ref: "web", view: "log", since: n(42)},
		{uri: "yieldshell://process/web/log?since_seq=-3", ref: "web", view: "log", since: n(-3)},
		{uri: "yieldshell://process/web/log?since_seq=9223372036854775807", ref: "web", view: "log", since: n(9223372036854775807)},
		{uri: "yieldshell://process/web/log?", ref: "web", view: "log"},
		{uri: "yieldshell://process/web/log?since_seq=9223372036854775808", bad: "not an integer"},
		{uri: "yieldshell://process/web/log?since_seq=1e3", bad: "not an integer"},
		{uri: "yieldshell://process/web/log?since_seq=", bad: "not an integer"},
		{uri: "yieldshell://process/web/log?since_seq=1&since_seq=2", bad: "more than once"},
		{uri: "yieldshell://process/web/log?path=/etc/passwd", bad: "only query parameter"},
		{uri: "yieldshell://process/web/log?since_seq=%zz", bad: "query"},
		{uri: "yieldshell://process/web/log#top", bad: "fragment"},
		{uri: "yieldshell://process/web", bad: "path"},
		{uri: "yieldshell://process/web/", bad: "path"},
		{uri: "yieldshell://process/web/log/more", bad: "path"},
		{uri: "yieldshell://process/web/stdin", bad: "path"},
		{uri: "yieldshell://process//log", bad: "empty"},
		{uri: "yieldshell://process/%zz/log", bad: "escaped"},
		{uri: "yieldshell://process/" + strings.Repeat("x", maxRefLen+1) + "/log", bad: "longer"},
		{uri: "yieldshell://other/web/log", bad: "does not start"},
		{uri: "YIELDSHELL://process/web/log", bad: "does not start"},
		{uri: "file:///etc/passwd", bad: "does not start"},
		{uri: "", bad: "does not start"},
	} {
		got, err := parse(c.uri)
		if c.bad != "" {
			var je *jsonrpc.Error
			if err == nil || !strings.Contains(err.Error(), c.bad) || !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams {
				t.Errorf("parse(%q) = %+v, %v; want an invalid-params error about %q", c.uri, got, err, c.bad)
			}
			if err != nil && len(err.Error()) > 300 {
				t.Errorf("parse(%q): the error repeats the whole URI: %d bytes", c.uri, len(err.Error()))
			}
			continue
		}
		if err != nil || got.ref != c.ref || got.view != c.view || (got.since == nil) != (c.since == nil) ||
			got.since != nil && *got.since != *c.since {
			t.Errorf("parse(%q) = %+v, %v; want ref %q view %q since %v", c.uri, got, err, c.ref, c.view, c.since)
		}
	}
}

// Every URI the tools link to parses back to the process.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"proc_0123456789ab", "web", "a/b", "My Server", "..", "%", "?#"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, ref string) {
		if ref == "" || len(ref) > maxRefLen {
			return
		}
		for _, view := range []string{"log", "screen"} {
			got, err := parse(mcptool.ProcessURI(ref, view))
			if err != nil || got.ref != ref || got.view != view || got.since != nil {
				t.Errorf("%q: %+v %v", ref, got, err)
			}
		}
	})
}
