package sandbox

import (
	"fmt"
	"runtime"

	"golang.org/x/sys/unix"
)

// Start confines a new thread by p and calls fork on it, once: what fork
// starts inherits the thread's Landlock domain, no_new_privs and seccomp
// filter. The returned Monitor names the child's denials; the caller
// closes it when the child and its descendants no longer matter. tty is
// the child's terminal ("" with pipes), which it may write.
//
// The thread is never handed back to the runtime: the goroutine ends
// locked to it, so it exits with it.
func Start(p *Policy, s Support, tty string, fork func() error) (*Monitor, error) {
	if err := s.Check(p); err != nil {
		return nil, err
	}
	return onNewThread(p.withDevices(tty), s, fork)
}

// onNewThread runs confineAndFork on a goroutine locked to a thread of
// its own, which it never unlocks.
func onNewThread(p *Policy, s Support, fork func() error) (*Monitor, error) {
	type result struct {
		m   *Monitor
		err error
	}
	ch := make(chan result, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread is discarded
		if unix.Gettid() == unix.Getpid() {
			// The main thread: confined, the runtime would keep it (and
			// /proc/PID, which is its, would then be open to the child).
			// Holding it, the next goroutine runs elsewhere.
			m, err := onNewThread(p, s, fork)
			runtime.UnlockOSThread()
			ch <- result{m, err}
			return
		}
		m, err := confineAndFork(p, s, fork)
		ch <- result{m, err}
	}()
	r := <-ch
	return r.m, r.err
}

func confineAndFork(p *Policy, s Support, fork func() error) (*Monitor, error) {
	listener, err := confineThread(p, s)
	if err != nil {
		return nil, err
	}
	m, err := watch(p, listener)
	if err != nil {
		return nil, err
	}
	if err := fork(); err != nil {
		m.Close()
		return nil, err
	}
	return m, nil
}

// ConfineThread confines the calling thread by p, for a process that
// confines itself and then execs the command from this thread (the
// network jail's helper): Landlock, no_new_privs and the seccomp filter,
// as Start gives a fork. It returns the filter's notification listener
// (-1 without seccomp, best-effort), which the server wraps with Watch;
// until it does, a notified call waits. The caller has locked the thread
// and never unlocks it. tty is the command's terminal ("" with pipes).
func ConfineThread(p *Policy, s Support, tty string) (int, error) {
	if err := s.Check(p); err != nil {
		return -1, err
	}
	return confineThread(p.withDevices(tty), s)
}

// Watch names the denials of a command that confined itself by p with
// ConfineThread (same tty), from the listener it handed over; it owns
// listener from now on. Nil (nothing named) for -1.
func Watch(p *Policy, tty string, listener int) (*Monitor, error) {
	return watch(p.withDevices(tty), listener)
}

func watch(p *Policy, listener int) (*Monitor, error) {
	if listener < 0 {
		return nil, nil // without seccomp (best-effort): nothing is named
	}
	m, err := newMonitor(p, listener)
	if err != nil {
		return nil, fmt.Errorf("following seccomp notifications: %w", err)
	}
	return m, nil
}

// confineThread applies p to the calling thread and returns the seccomp
// notification listener, or -1 without seccomp.
func confineThread(p *Policy, s Support) (int, error) {
	ruleset := -1
	if s.LandlockABI > 0 {
		fd, err := buildRuleset(p, s.LandlockABI)
		if err != nil {
			return -1, err
		}
		ruleset = fd
		defer unix.Close(ruleset)
	}
	listener := -1
	if s.Seccomp {
		fd, err := installFilter(s.filter(p))
		if err != nil {
			return -1, err
		}
		listener = fd
	} else if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return -1, fmt.Errorf("setting no_new_privs: %w", err)
	}
	if ruleset >= 0 {
		if err := restrictThread(ruleset); err != nil {
			if listener >= 0 {
				unix.Close(listener)
			}
			return -1, err
		}
	}
	return listener, nil
}
