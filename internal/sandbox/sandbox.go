package sandbox

import (
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// Modes of a confined command, as YIELDSHELL_SANDBOX spells them.
const (
	ModeReadOnly       = "read-only"
	ModeWorkspaceWrite = "workspace-write"
)

// Network modes for a confined command. NetworkHosts is on as far as
// this package is concerned: the command runs in a network namespace
// whose only way out is the host list's proxy (package netjail).
const (
	NetworkOff   = "off"
	NetworkOn    = "on"
	NetworkHosts = "hosts"
)

// Policy is what one confined command may do.
type Policy struct {
	Mode    string // ModeReadOnly or ModeWorkspaceWrite
	Network string // NetworkOff, NetworkOn or NetworkHosts
	// Writable are the directories and files the command may write:
	// its roots (workspace-write), extra paths and its TMPDIR. Absolute.
	Writable []string
	// Protected are paths that stay read-only even inside a writable
	// one (yieldshell's own files). Any .git/hooks and .git/config are
	// protected wherever they are.
	Protected []string
	// BestEffort: apply what the kernel offers and report the rest
	// instead of refusing.
	BestEffort bool
}

// devices are written by ordinary programs wherever they run; /dev/ptmx
// and /dev/pts make new pseudo-terminals (script, expect, tmux).
var devices = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/ptmx", "/dev/pts"}

// withDevices returns a copy of p that may also write the devices and
// the command's terminal.
func (p *Policy) withDevices(tty string) *Policy {
	q := *p
	q.Writable = append(slices.Clip(p.Writable), devices...)
	if tty != "" {
		q.Writable = append(q.Writable, tty)
	}
	return &q
}

// Denial is one kind of refusal: an operation on a path or address (or,
// refused by a host list's proxy, a connect to a host and port, with
// why), and how many times it was refused.
type Denial struct {
	Op      string `json:"op"`
	Path    string `json:"path,omitempty"`
	Address string `json:"address,omitempty"`
	Host    string `json:"host,omitempty"`
	Port    int    `json:"port,omitempty"`
	Reason  string `json:"reason,omitempty"`
	Count   int    `json:"count"`
}

// MaxDenials bounds the distinct denials a Monitor keeps; later ones
// are counted in one more entry, op "more".
const MaxDenials = 16

// denials records refusals, bounded.
type denials struct {
	mu   sync.Mutex
	list []Denial
}

func (d *denials) add(op, path, addr string) {
	d.addDenial(Denial{Op: op, Path: path, Address: addr})
}

// addDenial records one refusal of what n names (its Count aside).
func (d *denials) addDenial(n Denial) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for i := range d.list {
		if e := &d.list[i]; e.Op == n.Op && e.Path == n.Path && e.Address == n.Address && e.Host == n.Host && e.Port == n.Port {
			e.Count++
			return
		}
	}
	if len(d.list) == MaxDenials {
		d.list = append(d.list, Denial{Op: "more"})
	}
	if len(d.list) > MaxDenials {
		d.list[MaxDenials].Count++
		return
	}
	n.Count = 1
	d.list = append(d.list, n)
}

func (d *denials) snapshot() []Denial {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.list)
}

// within reports whether p is dir or inside it (both clean, absolute).
func within(p, dir string) bool {
	if dir == "/" {
		return true
	}
	return p == dir || strings.HasPrefix(p, dir+"/")
}

// allowed reports whether policy lets op write path (resolved, clean):
// inside a writable path and not a protected one, nor (to rename or
// remove) an ancestor of one, which would unprotect what is in it.
func (p *Policy) allowed(op, path string) bool {
	path = filepath.Clean(path)
	ok := false
	for _, w := range p.Writable {
		if within(path, w) {
			ok = true
			break
		}
	}
	if !ok {
		return false
	}
	if gitProtected(op, path) {
		return false
	}
	moves := op == "rename" || op == "rmdir"
	for _, q := range p.Protected {
		if within(path, q) || moves && within(q, path) {
			return false
		}
	}
	return true
}

// gitProtected reports whether op on path could plant a repository's
// hooks or config: path is inside a component ".git" followed by "hooks"
// or "config", or is a ".git" made by anything but mkdir (a ".git" file
// or symlink names another git directory; renaming one in brings its
// hooks along).
func gitProtected(op, path string) bool {
	parts := strings.Split(path, "/")
	for i, c := range parts {
		if c != ".git" {
			continue
		}
		if i == len(parts)-1 {
			return op != "mkdir"
		}
		if n := parts[i+1]; n == "hooks" || n == "config" {
			return true
		}
	}
	return false
}
