package roots

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yieldshell/yieldshell/internal/testdir"
)

// fileURI is dir as a file:// URI.
func fileURI(dir string) string {
	p := filepath.ToSlash(dir)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // C:/x is file:///C:/x
	}
	return (&url.URL{Scheme: "file", Path: p}).String()
}

func rootsOf(uris ...string) []*mcp.Root {
	out := make([]*mcp.Root, len(uris))
	for i, u := range uris {
		out[i] = &mcp.Root{URI: u}
	}
	return out
}

// TestResolve: a hostile list keeps only existing directories, resolved,
// once each, and says why it dropped the rest.
func TestResolve(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Unix paths")
	}
	base := testdir.New(t)
	proj := filepath.Join(base, "my proj")
	other := filepath.Join(base, "other")
	for _, d := range []string{proj, other} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	file := filepath.Join(base, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(base, "link")
	testdir.Symlink(t, other, link)
	toRoot := filepath.Join(base, "toroot")
	testdir.Symlink(t, "/", toRoot)

	tests := []struct {
		name    string
		list    []*mcp.Root
		want    []string
		refused []string // each in one refusal, in order
		missing string   // in Missing when want is empty
	}{
		{"plain", rootsOf(fileURI(proj), fileURI(other)), []string{proj, other}, nil, ""},
		{"percent-encoded space", rootsOf("file://" + strings.ReplaceAll(proj, " ", "%20")), []string{proj}, nil, ""},
		{"symlink resolved", rootsOf(fileURI(link)), []string{other}, nil, ""},
		{"duplicates, also through a link", rootsOf(fileURI(other), fileURI(link), fileURI(other+"/")), []string{other}, nil, ""},
		{"the file system's root", rootsOf("file:///", fileURI(proj)), []string{proj}, []string{"file system's root"}, ""},
		{"a link to the root", rootsOf(fileURI(toRoot)), nil, []string{"file system's root"}, "none of the 1 roots"},
		{"relative", rootsOf("file:proj", "proj", "./proj"), nil, []string{"file:relative", "not a file://", "not a file://"}, "none of the 3"},
		{"dot-dot", rootsOf("file://" + proj + "/../.."), nil, []string{`".." segment`}, "none of the 1"},
		{"other schemes", rootsOf("http://localhost"+proj, "vscode-vfs://github/x"), nil, []string{"not a file://", "not a file://"}, ""},
		{"a host", rootsOf("file://evil.example" + proj), nil, []string{"names host"}, ""},
		{"missing", rootsOf(fileURI(filepath.Join(base, "nope"))), nil, []string{"does not exist"}, ""},
		{"a file", rootsOf(fileURI(file)), nil, []string{"not a directory"}, ""},
		{"below a file", rootsOf(fileURI(file + "/x")), nil, []string{"does not exist"}, ""},
		{"null entry", []*mcp.Root{nil, {URI: fileURI(proj)}}, []string{proj}, []string{"null root"}, ""},
		{"none", nil, nil, nil, "answered roots/list with no roots"},
		{"empty list", []*mcp.Root{}, nil, nil, "with no roots"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, refused := Resolve(tt.list)
			if !slices.Equal(r.Paths, tt.want) && !(len(r.Paths) == 0 && len(tt.want) == 0) {
				t.Errorf("paths = %q, want %q", r.Paths, tt.want)
			}
			if len(refused) != len(tt.refused) {
				t.Fatalf("refused = %q, want %d like %q", refused, len(tt.refused), tt.refused)
			}
			for i, w := range tt.refused {
				if !strings.Contains(refused[i], w) {
					t.Errorf("refusal %d = %q, want it to say %q", i, refused[i], w)
				}
			}
			if len(tt.want) == 0 && !strings.Contains(r.Missing, tt.missing) || len(tt.want) > 0 && r.Missing != "" {
				t.Errorf("Missing = %q, want %q", r.Missing, tt.missing)
			}
		})
	}
}

// TestResolveHuge: a list of many roots costs at most MaxRoots lookups and
// keeps the first ones.
func TestResolveHuge(t *testing.T) {
	base := testdir.New(t)
	list := make([]*mcp.Root, 100_000)
	for i := range list {
		list[i] = &mcp.Root{URI: fileURI(filepath.Join(base, fmt.Sprint("missing", i)))}
	}
	list[0].URI = fileURI(base)
	r, refused := Resolve(list)
	if !slices.Equal(r.Paths, []string{mustEval(t, base)}) {
		t.Errorf("paths = %q", r.Paths)
	}
	if len(refused) != MaxRoots || !strings.Contains(refused[MaxRoots-1], "99936 more roots ignored") {
		t.Errorf("%d refusals; last %q", len(refused), refused[len(refused)-1])
	}
}

func mustEval(t *testing.T, p string) string {
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
