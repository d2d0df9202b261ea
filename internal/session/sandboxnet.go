package session

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/yieldshell/yieldshell/internal/netjail"
	"github.com/yieldshell/yieldshell/internal/netproxy"
	"github.com/yieldshell/yieldshell/internal/policy"
	"github.com/yieldshell/yieldshell/internal/sandbox"
	"github.com/yieldshell/yieldshell/pty"
)

// hostList is a server's YIELDSHELL_SANDBOX_NETWORK host list: the
// parsed list and the binary that runs the network jail's helper
// (Options.Helper). gap, when set, says why the jail does not work here:
// best-effort then runs commands with the network off and says so.
type hostList struct {
	hosts  netproxy.List
	helper string
	gap    string
}

// jailCheckTimeout bounds the start's check that the jail works.
const jailCheckTimeout = 10 * time.Second

// checkHostList parses the host list and checks that the jail works here
// (check: netjail.Check's), refusing a server that could not enforce it
// unless best-effort; nil without a host list.
func checkHostList(sb policy.Sandbox, helper string, check func(helper string) error) (*hostList, error) {
	if sb.Network != policy.NetworkHosts {
		return nil, nil
	}
	list, err := netproxy.Parse(strings.Join(sb.Hosts, ","))
	if err != nil {
		return nil, fmt.Errorf("YIELDSHELL_SANDBOX_NETWORK: %w", err)
	}
	h := &hostList{hosts: list, helper: helper}
	if helper == "" {
		err = fmt.Errorf("network sandbox: no helper binary to start it with")
	} else {
		err = check(helper)
	}
	switch {
	case err == nil:
		return h, nil
	case sb.Mode == policy.SandboxBestEffort:
		h.gap = fmt.Sprintf("the host list (%v): the network is off", err)
		return h, nil
	}
	return nil, fmt.Errorf("YIELDSHELL_SANDBOX_NETWORK: a host list cannot be enforced here: %w (YIELDSHELL_SANDBOX=best-effort runs with the network off and says so)", err)
}

// SandboxNetworkGaps says, for health reports, what of the network
// setting is not enforced: a host list whose jail does not work here
// (best-effort).
func (m *Manager) SandboxNetworkGaps() []string {
	if m.hostList == nil || m.hostList.gap == "" {
		return nil
	}
	return []string{m.hostList.gap}
}

// checkJail is checkHostList's check: it starts the helper once.
func checkJail(helper string) error {
	ctx, cancel := context.WithTimeout(context.Background(), jailCheckTimeout)
	defer cancel()
	return netjail.Check(ctx, helper)
}

// jailRun is one host-list process's network: the jail its helper starts
// in and the proxy that serves it, with the proxy's denials so far.
type jailRun struct {
	list    *hostList
	policy  *sandbox.Policy
	support sandbox.Support
	approve func(ctx context.Context, host string, port uint16) bool // a held connect's; nil refuses
	jail    *netjail.Jail                                            // nil until open
	proxy   *netproxy.Proxy

	mu     sync.Mutex
	denied []sandbox.Denial
	more   int // destinations refused beyond MaxDenials
}

// open makes the jail right before the start and wraps opts in its
// helper, which confines the command once the network is set up.
func (r *jailRun) open(opts *pty.Options) error {
	if err := r.support.Check(r.policy); err != nil {
		return err
	}
	r.proxy = netproxy.New(netproxy.Config{Hosts: r.list.hosts, Approve: r.approve})
	j, err := netjail.New(r.proxy)
	if err != nil {
		return err
	}
	r.jail = j
	opts.Path, opts.Args = j.Wrap(r.list.helper, 3, opts.Path, opts.Args) // descriptor 3: Prepare's
	opts.Prepare = func(tty string, attr *os.ProcAttr) {
		attr.Files = append(slices.Clip(attr.Files), j.ChildFile())
		j.Apply(attr.Sys)
		j.Confine(r.policy, r.support, tty)
	}
	return nil
}

// serve follows the helper once the process started: the proxy serves
// its listener and the Monitor names its denials. When the helper failed
// it said why on the process's stderr and ends it; the error says so too.
func (r *jailRun) serve(ctx context.Context) (*sandbox.Monitor, error) {
	if err := r.jail.Serve(ctx); err != nil {
		return nil, err
	}
	return r.jail.Monitor(), nil
}

// take returns the proxy's denials so far: those of earlier answers with
// the new ones counted in, bounded as a Monitor's are.
func (r *jailRun) take() []sandbox.Denial {
	if r == nil || r.proxy == nil {
		return nil
	}
	fresh, dropped := r.proxy.TakeDenials()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.more += dropped
	for _, d := range fresh {
		i := slices.IndexFunc(r.denied, func(e sandbox.Denial) bool { return e.Host == d.Host && e.Port == d.Port })
		switch {
		case i >= 0:
			r.denied[i].Count += d.Count
		case len(r.denied) < sandbox.MaxDenials:
			r.denied = append(r.denied, sandbox.Denial{Op: d.Op, Host: d.Host, Port: d.Port, Reason: d.Reason, Count: d.Count})
		default:
			r.more += d.Count
		}
	}
	out := slices.Clone(r.denied)
	if r.more > 0 {
		out = append(out, sandbox.Denial{Op: "connect", Reason: "more destinations, not named", Count: r.more})
	}
	return out
}

// close stops the proxy: the process's descendants lose the network.
func (r *jailRun) close() {
	if r != nil && r.jail != nil {
		_ = r.jail.Close()
	}
}
