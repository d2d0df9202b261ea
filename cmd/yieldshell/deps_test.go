package main

import (
	"go/build"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestImportDirection enforces the layering of docs/architecture.md: arrows
// point one way, from cmd through the serving packages (daemon, httpserve,
// console, tools, metrics) to session and the engine below it, and
// conformance speaks to the binary only. Tests anywhere may use the test
// helpers internal/poll, internal/testdir, internal/cdptest and
// internal/gpgtest, which import nothing of ours but each other.
func TestImportDirection(t *testing.T) {
	const mod = "github.com/yieldshell/yieldshell/"
	allowed := map[string][]string{
		"pty":                {"internal/proc"},
		"internal/proc":      {},
		"screen":             {},
		"internal/policy":    {"internal/spell"},
		"internal/spell":     {},
		"prompt":             {"screen", "internal/proc"},
		"internal/session":   {"pty", "screen", "prompt", "internal/policy", "internal/shellinit", "internal/outlog", "internal/disklog", "internal/safedir"},
		"internal/disklog":   {"internal/safedir", "internal/safetext"},
		"internal/safedir":   {},
		"internal/safetext":  {},
		"internal/outlog":    {},
		"internal/shellinit": {"internal/safedir"},
		"tools":              {"internal/session", "internal/policy", "internal/shellyeah", "internal/mcptool", "internal/outlog", "internal/askhuman", "internal/roots"},
		"internal/shellyeah": {"internal/session", "internal/policy", "internal/mcptool", "internal/proc", "internal/askhuman", "internal/roots"},
		"internal/roots":     {"internal/policy"},
		"internal/askhuman":  {"internal/session", "internal/policy", "internal/human"},
		"internal/human":     {},
		"internal/mcptool":   {"internal/spell"},
		"internal/metrics":   {"internal/session"},
		"conformance":        {},
		"internal/daemon":    {"internal/session", "internal/policy", "internal/linerpc", "internal/safedir"},
		"internal/linerpc":   {},
		"internal/poll":      {},
		"internal/testdir":   {},
		"internal/cdptest":   {"internal/poll", "internal/testdir"},
		"internal/gpgtest":   {},
		"internal/console":   {"tools", "internal/daemon", "internal/safetext"},
		"internal/httpserve": {"internal/policy"},
		"internal/mcplog":    {},
		"internal/resources": {"tools", "internal/mcptool", "internal/session", "internal/policy"},
		"internal/app": {"tools", "internal/mcptool", "internal/metrics", "internal/session", "pty",
			"internal/policy", "internal/mcplog", "internal/human", "internal/askhuman", "internal/resources", "internal/roots"},
		"cmd/yieldshell": {"internal/app", "internal/daemon", "internal/linerpc", "internal/metrics", "internal/policy",
			"internal/console", "internal/httpserve"},
	}
	for pkg, ok := range allowed {
		p, err := build.ImportDir(filepath.Join("..", "..", pkg), 0)
		if err != nil {
			t.Errorf("%s: %v", pkg, err)
			continue
		}
		for _, imp := range slices.Concat(p.Imports, p.TestImports, p.XTestImports) {
			ours, found := strings.CutPrefix(imp, mod)
			testHelper := ours == "internal/poll" || ours == "internal/testdir" || ours == "internal/cdptest" || ours == "internal/gpgtest"
			if !found || testHelper && !slices.Contains(p.Imports, imp) {
				continue
			}
			if !slices.Contains(ok, ours) {
				t.Errorf("%s imports %s; it may import only %v of this module", pkg, ours, ok)
			}
		}
	}
}
