//go:build !linux && !darwin

package sandbox

import "errors"

// Probe reports nothing: commands are confined on Linux only (macOS has
// a Seatbelt profile, untested; Windows runs them unconfined).
func Probe() Support { return Support{} }

// Monitor is Linux's; elsewhere there is none.
type Monitor struct{}

// Denied is always empty here.
func (m *Monitor) Denied() []Denial { return nil }

// Close does nothing here.
func (m *Monitor) Close() error { return nil }

// Start refuses: there is no sandbox on this system.
func Start(p *Policy, s Support, tty string, fork func() error) (*Monitor, error) {
	return nil, errors.New("sandbox: commands are confined on Linux only")
}

// compiled is Linux's: nothing to prepare here.
type compiled struct{}
