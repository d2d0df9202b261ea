package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// version overrides the module version from the build info. Only tests set
// it (-ldflags "-X main.version=..."), to build a binary that differs.
var version = ""

// buildVersion is the module version the go command recorded in the
// binary: the tag for `go install ...@v1.2.3`, a pseudo-version naming the
// commit (and +dirty) for a build inside a checkout, "(devel)" when it knew
// neither. It is serverInfo.version and what the persistent server compares.
func buildVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}

// versionLine is what --version prints: the version, then the VCS revision
// and whether the tree had local changes, when the build recorded them, and
// the Go release.
func versionLine() string {
	rev, modified := "", false
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
	}
	line := "yieldshell " + buildVersion()
	if rev != "" {
		line += " revision " + rev
		if modified {
			line += " (modified)"
		}
	}
	return fmt.Sprintf("%s %s %s/%s", line, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}
