package main

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCrossBuild keeps the supported platforms building: the whole module
// for linux and darwin on amd64 and arm64, and the start-up refusal for
// windows. It compiles and vets only (nothing runs); -short skips it.
func TestCrossBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("cross-compiling is slow with a cold build cache")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	// The go command caches a test's result by the files it opens; these
	// builds read sources the test binary does not depend on (other
	// platforms' files), so look at every one of them.
	_ = filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (strings.HasSuffix(path, ".go") || d.Name() == "go.mod") {
			_, _ = os.Stat(path)
		}
		return nil
	})
	for _, tc := range []struct{ goos, goarch, pkg string }{
		{"linux", "amd64", "./..."},
		{"linux", "arm64", "./..."},
		{"darwin", "amd64", "./..."},
		{"darwin", "arm64", "./..."},
		{"windows", "amd64", "."},
		{"windows", "arm64", "."},
	} {
		t.Run(tc.goos+"_"+tc.goarch, func(t *testing.T) {
			// Several packages: build and discard, then vet, which also
			// type-checks the tests.
			cmds := [][]string{{"build", tc.pkg}, {"vet", tc.pkg}}
			if tc.pkg == "." {
				cmds = [][]string{{"build", "-o", os.DevNull, "."}}
			}
			for _, args := range cmds {
				cmd := exec.Command("go", args...)
				if tc.pkg != "." {
					cmd.Dir = "../.."
				}
				cmd.Env = append(os.Environ(), "GOOS="+tc.goos, "GOARCH="+tc.goarch, "CGO_ENABLED=0")
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Errorf("GOOS=%s GOARCH=%s go %s: %v\n%s", tc.goos, tc.goarch, strings.Join(args, " "), err, out)
				}
			}
		})
	}
}
