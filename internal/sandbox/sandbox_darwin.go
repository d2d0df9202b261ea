package sandbox

import (
	"errors"
	"os"
)

// Probe reports whether sandbox-exec is there: commands are then wrapped
// in it (SeatbeltArgv), not confined by Start.
func Probe() Support {
	_, err := os.Stat(seatbeltExec)
	return Support{Seatbelt: err == nil}
}

// Monitor is Linux's; on macOS denials are not named.
type Monitor struct{}

// Denied is always empty here.
func (m *Monitor) Denied() []Denial { return nil }

// Close does nothing here.
func (m *Monitor) Close() error { return nil }

// Start is Linux's: on macOS a command is wrapped by SeatbeltArgv.
func Start(p *Policy, s Support, tty string, fork func() error) (*Monitor, error) {
	return nil, errors.New("sandbox: on macOS commands run under sandbox-exec (SeatbeltArgv)")
}

// compiled is Linux's: nothing to prepare here.
type compiled struct{}
