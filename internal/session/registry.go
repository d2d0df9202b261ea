package session

import (
	"errors"
	"fmt"
	"strings"
)

// ErrNameNeeded refuses a restart policy on a process without a name: its
// later runs could not be found.
var ErrNameNeeded = errors.New("a restart policy needs a name, so that the process can be found after a restart")

// NormalizeName is how every tool compares names: surrounding blanks
// dropped, each run of blanks inside turned into "-", lower case. So "My Dev
// Server" and "my-dev-server" are the same process.
func NormalizeName(s string) string {
	return strings.ToLower(strings.Join(strings.Fields(s), "-"))
}

// NameInUseError refuses to start a second process under a name whose
// process is running (or about to be restarted after a crash).
type NameInUseError struct {
	Name      string
	ProcessID string // the running process; "" while a restart is pending
}

func (e *NameInUseError) Error() string {
	if e.ProcessID == "" {
		return fmt.Sprintf("starting %q: a process of that name crashed and is about to be restarted; use restart to restart it now or stop to cancel the restart", e.Name)
	}
	return fmt.Sprintf("starting %q: a process of that name is already running (%s); use restart to restart it, or stop it first", e.Name, e.ProcessID)
}

// registry is the Manager's record of its processes and their names: who
// runs under which id and name, how each run was started (to start it
// again), and each name's claim, pending crash restart and history. It
// does no supervision; the Manager guards it with its mutex.
type registry struct {
	procs map[string]*Process
	order []*Process            // in start order
	live  map[*Process]struct{} // registered, their end not handled yet
	runs  map[string]*runRecord // by process id: how to start it again
	names map[string]*nameState // by name
	ended endedOutput           // what ended runs' output holds (retention.go)
}

func newRegistry() registry {
	return registry{
		procs: make(map[string]*Process),
		live:  make(map[*Process]struct{}),
		runs:  make(map[string]*runRecord),
		names: make(map[string]*nameState),
	}
}

// nameState is what the Manager knows about a name beyond its runs.
type nameState struct {
	starting bool            // a Start under this name is under way
	pending  *pendingRestart // a crash restart is scheduled
	restarts int             // runs started by restart (the tool or the policy) since the last fresh start
	last     *Exit           // how the most recent ended run under this name ended
	// evictedRuns counts ended runs forgotten to keep the name's runs
	// within retention.runsPerName.
	evictedRuns int
}

// Exit is how a run ended, kept in a name's history.
type Exit struct {
	ProcessID string
	Code      *int
	Signal    string
	EndedBy   Ending
}

// History is a name's restart history.
type History struct {
	Restarts       int   // runs started by a restart since the name was last started fresh
	LastExit       *Exit // the most recent ended run under the name
	RestartPending bool  // a crash restart is scheduled
	EvictedRuns    int   // older ended runs forgotten to keep at most 10 runs of the name
}

// byName returns the newest run under name, or nil.
func (r *registry) byName(name string) *Process {
	if name == "" {
		return nil
	}
	for i := len(r.order) - 1; i >= 0; i-- {
		if r.order[i].Name == name {
			return r.order[i]
		}
	}
	return nil
}

// claimName checks that name is free and marks it as starting. A crash
// restart passes the pending restart it carries out; it fails if that was
// cancelled meanwhile.
func (r *registry) claimName(name string, pending *pendingRestart) error {
	if name == "" {
		return nil
	}
	ns := r.names[name]
	if ns == nil {
		ns = &nameState{}
		r.names[name] = ns
	}
	if pending != nil {
		if ns.pending != pending {
			return errRestartCancelled
		}
		ns.pending = nil
	}
	if ns.pending != nil {
		return &NameInUseError{Name: name}
	}
	if ns.starting {
		return &NameInUseError{Name: name, ProcessID: "starting"}
	}
	if p := r.byName(name); p != nil && !p.Ended() {
		return &NameInUseError{Name: name, ProcessID: p.ID}
	}
	ns.starting = true
	return nil
}

// claimEnd is how a claim on a name ended.
type claimEnd uint8

const (
	claimAbandoned claimEnd = iota // nothing started
	claimStarted                   // a fresh run started
	claimRestarted                 // a run started by restart (the tool or the policy)
)

// releaseName ends a claim.
func (r *registry) releaseName(name string, how claimEnd) {
	ns := r.names[name]
	if name == "" || ns == nil {
		return
	}
	ns.starting = false
	switch how {
	case claimRestarted:
		ns.restarts++
	case claimStarted:
		ns.restarts = 0
	}
}

// forget drops what the Manager keeps about a purged run, and about
// its name once no run, claim or pending restart is left under it.
func (r *registry) forget(p *Process) {
	delete(r.runs, p.ID)
	delete(r.live, p)
	ns := r.names[p.Name]
	if ns == nil || ns.starting || ns.pending != nil || r.byName(p.Name) != nil {
		return
	}
	delete(r.names, p.Name)
}

// runRecord is what the Manager keeps about one run to start it again.
type runRecord struct {
	spec    Spec
	attempt int // crash restarts in a row that led to this run
	// settled is closed once the run ended and its end was handled; restart
	// is then the crash restart it led to, if any.
	settled chan struct{}
	restart *pendingRestart
}

// pendingRestart is a crash restart waiting for its delay.
type pendingRestart struct {
	cancel chan struct{}
	done   chan struct{} // closed once the restart was tried (or given up)
	next   *Process      // the new run, if it started; read after done
}

var errRestartCancelled = errors.New("restart cancelled")

// settled reports whether p has ended and its end was handled.
func (r *registry) settled(p *Process) bool {
	run := r.runs[p.ID]
	if run == nil {
		return p.Ended()
	}
	select {
	case <-run.settled:
		return true
	default:
		return false
	}
}
