package roots

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yieldshell/yieldshell/internal/policy"
)

// MaxRoots is how many of a client's roots are looked at; the rest are
// ignored (and logged). Clients name a handful; a longer list costs a
// symlink walk each and confines no better.
const MaxRoots = 64

// Resolve turns a roots/list answer into the roots in force: each URI
// parsed strictly (Parse), its symlinks resolved, kept when it is an
// existing directory other than the file system's root and not already
// listed. refused says, one line per root, why each other one was left
// out, for the log.
func Resolve(list []*mcp.Root) (r policy.Roots, refused []string) {
	r.Paths = []string{}
	for i, root := range list {
		if i == MaxRoots {
			refused = append(refused, fmt.Sprintf("%d more roots ignored: at most %d are used", len(list)-MaxRoots, MaxRoots))
			break
		}
		if root == nil {
			refused = append(refused, "a null root")
			continue
		}
		p, err := resolve(root.URI)
		if err != nil {
			refused = append(refused, fmt.Sprintf("root %.200q: %v", root.URI, err))
			continue
		}
		if !slices.Contains(r.Paths, p) {
			r.Paths = append(r.Paths, p)
		}
	}
	if len(r.Paths) == 0 {
		r.Missing = "the client answered roots/list with no roots"
		if len(list) > 0 {
			r.Missing = fmt.Sprintf("none of the %d roots the client named is an existing directory it may name (the server's log says why)", len(list))
		}
	}
	return r, refused
}

// resolve is one root's URI as a directory, symlinks resolved.
func resolve(uri string) (string, error) {
	p, err := Parse(uri)
	if err != nil {
		return "", err
	}
	resolved, err := filepath.EvalSymlinks(p)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return "", errors.New("does not exist")
	} else if err != nil {
		return "", errors.New("cannot be resolved")
	}
	fi, err := os.Stat(resolved)
	if err != nil {
		return "", errors.New("cannot be checked")
	}
	if !fi.IsDir() {
		return "", errors.New("is not a directory")
	}
	if filepath.Dir(resolved) == resolved {
		return "", errors.New("is the file system's root, which confines nothing")
	}
	return resolved, nil
}
