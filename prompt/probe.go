package prompt

import "time"

// Activity is what the processes that could read a program's input are doing,
// as the kernel reports it.
type Activity int

const (
	// Unknown: the kernel cannot be asked here (not Linux, no permission).
	Unknown Activity = iota
	// Busy: running, sleeping on a timer, or waiting on something other
	// than the input (a poll, epoll or select whose descriptors do not
	// include it, or that include it among others but with a timeout: an
	// event loop waiting for its next timer).
	Busy
	// Polling: waiting, with no timeout, in poll, epoll or a
	// many-descriptor select that includes the input (or whose descriptors
	// could not be read): the program may be waiting for input or for
	// something else. The same wait with a timeout is a timer's (Busy).
	Polling
	// Reading: blocked reading the terminal (or the stdin pipe).
	Reading
)

func (a Activity) String() string {
	switch a {
	case Busy:
		return "busy"
	case Polling:
		return "polling"
	case Reading:
		return "reading"
	}
	return "unknown"
}

// Input identifies where a program reads its input from.
type Input struct {
	// Session is the session id: the pid of the command's first process.
	Session int
	// Pgrp is the terminal's foreground process group; 0 (pipe mode) means
	// any process of the session.
	Pgrp int
	// Path is what /proc shows for the input descriptor: "/dev/pts/N" for a
	// terminal, "pipe:[inode]" for a stdin pipe.
	Path string
	// Tag, when set, is "KEY=VALUE" of the environment variable that every
	// process of the command's tree carries: it finds the descendants that
	// left it (a daemon's helper reading the terminal by name).
	Tag string
	// Only, when set, is the one process looked at, whatever its group
	// holds: an interactive shell, whose start-up files may leave a job
	// running in its group (fish builds its completions so on a first
	// start) while the shell itself waits for a command.
	Only int
	// Direct: the verdict on this terminal alone; relays are not followed
	// (a relay polling it counts as polling, whatever runs inside). Who
	// takes a reply to a terminal query is asked so: the relay passes it
	// on.
	Direct bool
}

// Task is one thread.
type Task struct{ Pid, Tid int }

// Probe is the answer of Inspect.
type Probe struct {
	Activity Activity
	// Reader is the thread blocked reading the input, when Reading.
	Reader Task
	// Timed, when Busy: the input is among the descriptors of a wait
	// with a timeout (an event loop waiting for its next timer). It is a
	// timer's, unless other evidence says otherwise: a REPL may keep a
	// timer of its own while it waits at its prompt (node's REPL does for
	// its first seconds).
	Timed bool
	// Waiter is the thread in that timed wait, and Timeout the timeout
	// it passed, when Timed.
	Waiter  Task
	Timeout time.Duration
	// Outside: the reader (or the wait on the input, when Polling) is a
	// process of the command's tree outside the terminal's foreground
	// group (a setsid child, a dialog a daemon drew).
	Outside bool
	// Watched: a process of the command's tree waits on the input among
	// other descriptors, with or without a timeout, whatever the verdict
	// (a multiplexer's server polls the terminal its client handed over,
	// with a timer, while the client in the foreground waits on its
	// socket): what is written to the terminal is taken.
	Watched bool
	// Relay, when set: the verdict was seen through a relay (script,
	// screen, tmux, expect): a process of the command's tree holds the
	// master side of another terminal, and the reader (or the wait) is a
	// process of that terminal's foreground, judged on its settings.
	Relay *Relay
}

// Relay is the inner terminal a verdict was seen through.
type Relay struct {
	// Terminal is the inner terminal's path, "/dev/pts/N": the innermost
	// one, when relays nest.
	Terminal string
	// Depth is how many relays deep it is: 1 for a relay of the command's
	// own terminal.
	Depth int
	// Input names the innermost terminal and its foreground, as Inspect
	// takes it (Programs lists what runs there).
	Input Input
	// ModesKnown says whether Echo and Canonical could be read: Echo,
	// whether any of the relayed terminals echoes what is typed;
	// Canonical, whether the innermost one reads whole lines.
	ModesKnown, Echo, Canonical bool
}

// Switches is [Switches] (how many times thread t has given up the CPU
// to wait), as a method, so that code given a Prober asks it all of the
// kernel and can be given a fake.
func (pr *Prober) Switches(t Task) (uint64, bool) { return Switches(t) }
