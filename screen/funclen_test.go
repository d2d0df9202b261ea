package screen

import (
	"go/ast"
	"go/parser"
	gotoken "go/token"
	"path/filepath"
	"strings"
	"testing"
)

// maxFuncLines is the longest a function of the package may be, from its
// func line to its closing brace. The escape parsers used to be the
// exceptions; they are a tokenizer and per-family dispatch now, and this
// keeps them so.
const maxFuncLines = 60

func TestFunctionLength(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := gotoken.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			n := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1
			if n > maxFuncLines {
				t.Errorf("%s: %s is %d lines, more than %d", fset.Position(fn.Pos()), fn.Name.Name, n, maxFuncLines)
			}
		}
	}
}
