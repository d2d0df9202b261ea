package session

import (
	"os"

	"github.com/yieldshell/yieldshell/internal/policy"
)

// ShownDir is a start's directory as a person was shown it when asked to
// allow the start (Asking.Dir): the resolved path and what it was then. A
// start carrying one (Spec.ShownCwd) runs in that very directory or not at
// all: a link swapped or a directory replaced while they decided refuses
// it, at policy and again when the child changes directory.
type ShownDir struct {
	Path string
	info os.FileInfo
}

func shownDir(path string) (*ShownDir, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	return &ShownDir{Path: path, info: fi}, nil
}

// check refuses resolved unless it is still the directory d shows; a nil d
// allows any.
func (d *ShownDir) check(resolved string) error {
	if d == nil {
		return nil
	}
	if fi, err := os.Stat(resolved); resolved != d.Path || err != nil || !os.SameFile(d.info, fi) {
		return &policy.Refusal{Rule: "cwd", Message: "cwd no longer resolves to the directory the user approved " +
			"(a link or directory was changed while they decided). Nothing was started; run it again to ask again."}
	}
	return nil
}

func (d *ShownDir) fileInfo() os.FileInfo {
	if d == nil {
		return nil
	}
	return d.info
}

// once is spec as a later run of it (a restart, a crash restart) starts:
// what a person allowed was this start only, so the rules they waived hold
// again, the later run meets the refusal, and the paths they let it write
// are closed to it (issue 38: "once" is once).
func (s Spec) once() Spec {
	s.Waived, s.ShownCwd, s.Writable = nil, nil, nil
	return s
}
