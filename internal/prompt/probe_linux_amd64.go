// System call numbers differ by architecture: amd64 has select and poll
// besides pselect6 and ppoll.

package prompt

import "golang.org/x/sys/unix"

func archClass(nr int64) syscallClass {
	switch nr {
	case unix.SYS_SELECT:
		return scSelect
	case unix.SYS_POLL:
		return scPoll
	case unix.SYS_EPOLL_WAIT:
		return scEpoll
	}
	return scOther
}
