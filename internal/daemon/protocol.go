//go:build unix

package daemon

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/yieldshell/yieldshell/internal/policy"
)

// IdleEnv is how long the persistent server stays up with no running
// process and no client before it exits by itself; DefaultIdle applies
// when it is not set.
const (
	IdleEnv     = "YIELDSHELL_SERVER_IDLE_MS"
	DefaultIdle = 30 * time.Minute
)

// PersistEnv turns a stdio yieldshell into a bridge to the persistent
// server, as --persist does.
const PersistEnv = "YIELDSHELL_PERSIST"

// Files in the runtime directory.
const (
	SocketName    = "server.sock"
	instanceLock  = "server.lock" // held by the running server for its whole life
	startLock     = "start.lock"  // held while one client starts the server
	serverLogName = "server.log"
	logRotateSize = 10 << 20
)

// Operations a [Hello] asks for.
const (
	OpMCP    = "mcp"    // carry MCP on this connection
	OpStatus = "status" // only the welcome
	OpStop   = "stop"   // end every process and exit; the connection closes at exit
)

// Hello is the first line a client sends on the socket; [Welcome] is the
// server's one-line answer. Both are JSON. The two structs are the contract
// between versions: only add fields.
type Hello struct {
	Version string `json:"version"`
	Op      string `json:"op"`                // OpMCP, OpStatus or OpStop
	IfIdle  bool   `json:"if_idle,omitempty"` // stop: only if nothing runs and no client is connected
	// Settings are a bridge's configuration (see [Settings]): its mcp
	// hello is refused when they differ from the server's. Without them
	// (ps, logs, attach) no check is made.
	Settings map[string]string `json:"settings,omitempty"`
	// Secrets are a bridge's secrets (see [SecretPrints]): its mcp hello
	// is refused when the server would not redact one of them. Without
	// them (ps, logs, attach) no check is made.
	Secrets map[string]string `json:"secrets,omitempty"`
}

// Welcome is the server's answer to a [Hello]. A refused hello also gets
// one, with OK false and Error saying why.
type Welcome struct {
	OK      bool      `json:"ok"`
	Error   string    `json:"error,omitempty"`
	Version string    `json:"version"`
	PID     int       `json:"pid"`
	Started time.Time `json:"started"`
	Running int       `json:"running"` // running processes
	Clients int       `json:"clients"` // connected MCP clients, the asker excluded
	Log     string    `json:"log"`
	// Differ names the settings (see [Settings]) in which an mcp hello
	// differed from the server's, when that was why it was refused.
	Differ []string `json:"differ,omitempty"`
	// Unredacted names the bridge's secret variables whose values the
	// server does not redact, when that was why an mcp hello was refused.
	Unredacted []string `json:"unredacted,omitempty"`
}

// LoadIdle reads [IdleEnv] (0: never exit by itself).
func LoadIdle(getenv func(string) string) (time.Duration, error) {
	v := getenv(IdleEnv)
	if v == "" {
		return DefaultIdle, nil
	}
	ms, err := strconv.ParseInt(v, 10, 64)
	if err != nil || ms < 0 || ms > policy.MaxMillis {
		return 0, fmt.Errorf("invalid %s %q: use a number of milliseconds, 0 or more (0: never exit when idle)", IdleEnv, v)
	}
	return time.Duration(ms) * time.Millisecond, nil
}

// Settings fingerprints the configuration variables that are set: name ->
// a hash of the value (the values themselves may be secrets' patterns, and
// need not travel).
func Settings(getenv func(string) string) map[string]string {
	m := map[string]string{}
	for _, v := range append(policy.Vars(), policy.Var{Name: IdleEnv}) {
		if val := getenv(v.Name); val != "" {
			h := sha256.Sum256([]byte(val))
			m[v.Name] = hex.EncodeToString(h[:8])
		}
	}
	return m
}

// settingsDiffer names the variables set differently in a and b.
func settingsDiffer(a, b map[string]string) []string {
	var names []string
	for k, v := range a {
		if b[k] != v {
			names = append(names, k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			names = append(names, k)
		}
	}
	slices.Sort(names)
	return names
}

// SecretPrints fingerprints the secrets of environ (the values cfg
// redacts, see [policy.Config.Secrets]): the variable's name -> a hash of
// its value. A persistent server redacts the secrets of the environment it
// was started from; a bridge whose environment holds another is refused
// (issue 30 item 7), since the processes would show it. The hashes travel
// only over the private socket, between processes of one user who can
// read each other's environment anyway.
func SecretPrints(cfg *policy.Config, environ []string) map[string]string {
	m := map[string]string{}
	for _, s := range cfg.Secrets(environ) {
		m[s.Name] = secretPrint(s.Value)
	}
	return m
}

func secretPrint(value string) string {
	h := sha256.Sum256([]byte("yieldshell secret\x00" + value))
	return hex.EncodeToString(h[:16])
}

// unredacted names the secrets of a bridge (name -> print) whose values
// are not among the server's.
func unredacted(bridge, server map[string]string) []string {
	have := make(map[string]bool, len(server))
	for _, p := range server {
		have[p] = true
	}
	var names []string
	for name, p := range bridge {
		if !have[p] {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}
