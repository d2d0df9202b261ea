package pty

import (
	"cmp"
	"errors"
	"fmt"
	"os"
)

// The start of a command, the part every system shares: the checks, the
// Process and its streams. What follows (fork and exec in a session of
// its own on Unix, CreateProcess in a job object on Windows) is
// [Reaper.spawn], per system.

// Start starts a command under a PTY or pipes: on Unix in a session and
// process group of its own, on Windows in a job object of its own.
//
// A nil Env inherits the server's environment, as with os/exec. On
// Windows a Path of "/bin/sh" (the Unix default shell) runs cmd.exe
// (%ComSpec%) instead, and cmd.exe gets "-c LINE" as "/d /s /c LINE".
func (r *Reaper) Start(opts Options) (*Process, error) {
	p, err := r.start(opts)
	if err != nil {
		return nil, fmt.Errorf("starting %q: %w", opts.Path, err)
	}
	return p, nil
}

func (r *Reaper) start(opts Options) (*Process, error) {
	if opts.Path == "" {
		return nil, errors.New("empty path")
	}
	if err := checkDir(opts.Dir); err != nil {
		return nil, err
	}
	p := &Process{
		wsem:            make(chan struct{}, 1),
		done:            make(chan struct{}),
		eofWriteTimeout: cmp.Or(r.EOFWriteTimeout, defaultEOFWriteTimeout),
	}
	var err error
	if p.io, err = r.openStreams(opts, p); err != nil {
		return nil, err
	}
	// The child's ends are closed here once the child has them (or the
	// start failed); the server's ends only if it failed.
	defer p.io.closeChild()
	if err := r.spawn(opts, p); err != nil {
		_ = p.io.close()
		return nil, err
	}
	return p, nil
}

// checkDir says what is wrong with a working directory: the system would
// report a bad one as failing to start the program, which blames the
// program.
func checkDir(dir string) error {
	if dir == "" {
		return nil
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("chdir: %w", err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("chdir %s: %w", dir, errNotDir)
	}
	return nil
}
