package main

import (
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestImportDirection enforces the layering of docs/architecture.md for
// the files of linux, darwin and windows, and fails on a package of the
// module missing from its table (or one in it that is gone): arrows
// point one way, from cmd through the serving packages (daemon, httpserve,
// console, tools, metrics) to session and the engine below it, and
// conformance speaks to the binary only. Tests anywhere may use the test
// helpers internal/poll, internal/testdir, internal/cdptest,
// internal/gpgtest, internal/sshdtest and internal/testuser, which import
// nothing of ours but each other.
func TestImportDirection(t *testing.T) {
	const mod = "github.com/yieldshell/yieldshell/"
	allowed := map[string][]string{
		"pty":                {"internal/proc"},
		"internal/proc":      {},
		"screen":             {},
		"internal/policy":    {"internal/spell"},
		"internal/spell":     {},
		"prompt":             {"screen", "internal/proc"},
		"internal/session":   {"pty", "screen", "prompt", "internal/policy", "internal/shellinit", "internal/outlog", "internal/disklog", "internal/safedir", "internal/proc", "internal/sandbox", "internal/netjail", "internal/netproxy"},
		"internal/sandbox":   {"internal/proc"},
		"internal/disklog":   {"internal/safedir", "internal/safetext"},
		"internal/safedir":   {},
		"internal/safetext":  {},
		"internal/outlog":    {},
		"internal/shellinit": {"internal/safedir"},
		"tools": {"prompt", "internal/session", "internal/policy", "internal/shellyeah", "internal/mcptool", "internal/outlog", "internal/askhuman", "internal/roots",
			"internal/wire", "internal/answer", "internal/toolhost"},
		"internal/wire":      {"internal/mcptool", "internal/roots"},
		"internal/answer":    {"internal/session", "internal/policy", "internal/outlog", "internal/mcptool", "internal/wire"},
		"internal/toolhost":  {"internal/session", "internal/policy", "internal/askhuman", "internal/roots"},
		"internal/shellyeah": {"internal/session", "internal/policy", "internal/mcptool", "internal/proc", "internal/askhuman", "internal/roots", "internal/wire", "internal/answer"},
		"internal/roots":     {"internal/policy"},
		"internal/askhuman":  {"internal/session", "internal/policy", "internal/human", "internal/safetext"},
		"internal/human":     {},
		"internal/mcptool":   {"internal/spell", "prompt"},
		"internal/metrics":   {"internal/session", "internal/mcptool"},
		"conformance":        {},
		"release":            {},
		"internal/daemon":    {"internal/session", "internal/policy", "internal/linerpc", "internal/safedir", "internal/proc"},
		"internal/linerpc":   {},
		"internal/execproto": {},
		"internal/executor":  {"internal/execproto", "internal/policy", "pty", "prompt"},
		"internal/remote":    {"internal/execproto", "internal/executor", "internal/session", "internal/policy", "prompt", "pty"},
		"internal/poll":      {},
		"internal/testdir":   {},
		"internal/testuser":  {},
		"internal/cdptest":   {"internal/poll", "internal/testdir"},
		"internal/gpgtest":   {},
		"internal/sshdtest":  {"internal/poll"},
		"internal/console":   {"internal/wire", "internal/daemon", "internal/safetext"},
		"internal/httpserve": {"internal/policy"},
		"internal/mcplog":    {},
		"internal/netproxy":  {},
		"internal/netjail":   {"internal/netproxy", "internal/sandbox"},
		"internal/resources": {"internal/answer", "internal/wire", "internal/mcptool", "internal/session", "internal/policy"},
		"internal/app": {"tools", "internal/toolhost", "internal/mcptool", "internal/metrics", "internal/session", "pty",
			"internal/policy", "internal/mcplog", "internal/human", "internal/askhuman", "internal/resources", "internal/roots", "internal/remote"},
		"cmd/yieldshell": {"internal/app", "internal/daemon", "internal/executor", "internal/linerpc", "internal/metrics", "internal/policy",
			"internal/console", "internal/httpserve", "internal/proc", "internal/netjail"},
	}
	root := filepath.Join("..", "..")
	pkgs := modulePackages(t, root)
	for _, pkg := range pkgs {
		if _, known := allowed[pkg]; !known {
			t.Errorf("%s is not in the table: add it with the packages it may import", pkg)
		}
	}
	for pkg := range allowed {
		if !slices.Contains(pkgs, pkg) {
			t.Errorf("%s is in the table but not in the module: take it out", pkg)
		}
	}
	for _, goos := range []string{"linux", "darwin", "windows"} {
		ctxt := build.Default
		ctxt.GOOS, ctxt.CgoEnabled = goos, false
		for pkg, ok := range allowed {
			p, err := ctxt.ImportDir(filepath.Join(root, pkg), 0)
			if _, none := err.(*build.NoGoError); none {
				continue // nothing of it builds for goos
			}
			if err != nil {
				t.Errorf("%s (%s): %v", pkg, goos, err)
				continue
			}
			for _, imp := range slices.Concat(p.Imports, p.TestImports, p.XTestImports) {
				ours, found := strings.CutPrefix(imp, mod)
				testHelper := ours == "internal/poll" || ours == "internal/testdir" || ours == "internal/cdptest" || ours == "internal/gpgtest" || ours == "internal/sshdtest" || ours == "internal/testuser"
				if !found || ours == pkg || testHelper && !slices.Contains(p.Imports, imp) { // ours == pkg: an example of the package
					continue
				}
				if !slices.Contains(ok, ours) {
					t.Errorf("%s imports %s (%s files); it may import only %v of this module", pkg, ours, goos, ok)
				}
			}
		}
	}
}

// modulePackages lists every directory of the module under root that
// holds Go files, as paths relative to root (testdata, hidden directories
// and nested modules left out).
func modulePackages(t *testing.T, root string) []string {
	var pkgs []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if path != root && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "node_modules") {
			return filepath.SkipDir
		}
		if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil && path != root {
			return filepath.SkipDir
		}
		if files, _ := filepath.Glob(filepath.Join(path, "*.go")); len(files) > 0 {
			rel, err := filepath.Rel(root, path)
			if err != nil {
				return err
			}
			pkgs = append(pkgs, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return pkgs
}

// TestProcOnlyInProc: internal/proc is the one reader of /proc; no other
// package names a path under it (the surface asks the engine, the prober
// or internal/proc instead).
func TestProcOnlyInProc(t *testing.T) {
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	for _, pkg := range modulePackages(t, root) {
		if pkg == "internal/proc" {
			continue
		}
		files, _ := filepath.Glob(filepath.Join(root, pkg, "*.go"))
		for _, name := range files {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, name, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(f, func(n ast.Node) bool {
				if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING && strings.HasPrefix(strings.Trim(lit.Value, "`\""), "/proc") {
					t.Errorf("%s: %s names /proc; read it through internal/proc", fset.Position(lit.Pos()), lit.Value)
				}
				return true
			})
		}
	}
}
