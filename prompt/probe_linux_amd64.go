// System call numbers differ by architecture: amd64 has select and poll
// besides pselect6 and ppoll, and epoll_wait besides epoll_pwait.

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

// archTimeoutArg is timeoutArg for the calls only amd64 has.
func archTimeoutArg(nr int64) (timeoutForm, int) {
	switch nr {
	case unix.SYS_SELECT:
		return toTimeval, 4 // select(nfds, r, w, e, tvp)
	case unix.SYS_POLL:
		return toMillis, 2 // poll(fds, nfds, ms)
	case unix.SYS_EPOLL_WAIT:
		return toMillis, 3 // epoll_wait(epfd, events, max, ms)
	}
	return toNone, 0
}
