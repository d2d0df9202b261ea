package sandbox

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// Probe asks the kernel what it offers.
func Probe() Support {
	s := Support{LandlockABI: landlockABI()}
	action := uint32(retNotify)
	_, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_GET_ACTION_AVAIL, 0, uintptr(unsafe.Pointer(&action)))
	s.Seccomp = errno == 0
	if s.Seccomp {
		s.compiled = &compiled{filterOff: buildFilter(&Policy{Network: NetworkOff}), filterOn: buildFilter(&Policy{Network: NetworkOn}),
			filterHosts: buildFilter(&Policy{Network: NetworkHosts})}
	}
	return s
}

// compiled are the seccomp programs a start installs: they depend on the
// network mode only, and assembling one costs a start ~60 µs.
type compiled struct{ filterOff, filterOn, filterHosts []unix.SockFilter }

// filter is the seccomp program for p.
func (s Support) filter(p *Policy) []unix.SockFilter {
	switch {
	case s.compiled == nil:
		return buildFilter(p)
	case p.Network == NetworkOff:
		return s.compiled.filterOff
	case p.Network == NetworkHosts:
		return s.compiled.filterHosts
	default:
		return s.compiled.filterOn
	}
}
