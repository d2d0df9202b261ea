package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// maxFuncLines is the longest a function of the module may be, from its
// func line to its closing brace.
const maxFuncLines = 60

// longFuncs are the functions over maxFuncLines when the limit came in
// (issue 39), as file:function. The list only shrinks: one that gets
// short enough must leave it, and no function may join it.
var longFuncs = map[string]bool{
	"internal/askhuman/askhuman.go:Human.Ask":          true,
	"internal/cdptest/cdptest.go:Start":                true,
	"internal/httpserve/tokenfile_unix.go:readChecked": true,
	"internal/human/handler.go:Pages.act":              true,
	"internal/human/handler.go:Pages.events":           true,
	"internal/human/handler.go:Pages.serveHTTP":        true,
	"internal/outlog/headtail.go:Log.headTail":         true,
	"internal/shellyeah/start_shell.go:handlers.start": true,
	"prompt/probe_linux.go:probeAcc.addTask":           true,
}

// TestFunctionLength holds every function of the module (every file, for
// every GOOS; tests left out) to maxFuncLines, but those in longFuncs.
func TestFunctionLength(t *testing.T) {
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	long := map[string]int{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			if n := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1; n > maxFuncLines {
				long[filepath.ToSlash(rel)+":"+funcName(fn)] = n
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for name, n := range long {
		if !longFuncs[name] {
			t.Errorf("%s is %d lines, more than %d", name, n, maxFuncLines)
		}
	}
	for name := range longFuncs {
		if _, ok := long[name]; !ok {
			t.Errorf("%s is no longer over %d lines (or is gone): take it out of longFuncs", name, maxFuncLines)
		}
	}
}

// funcName is fn's name, with its receiver's type for a method.
func funcName(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return fn.Name.Name
	}
	typ := fn.Recv.List[0].Type
	if s, ok := typ.(*ast.StarExpr); ok {
		typ = s.X
	}
	if ix, ok := typ.(*ast.IndexExpr); ok {
		typ = ix.X
	}
	if id, ok := typ.(*ast.Ident); ok {
		return id.Name + "." + fn.Name.Name
	}
	return fn.Name.Name
}
