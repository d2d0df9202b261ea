package pty

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf16"
	"unsafe"

	"golang.org/x/sys/windows"
)

// On Windows a command runs in a job object of its own, created with
// kill-on-close: its descendants join the job, so the job is the command's
// tree, and the job handle closing (stop, shutdown, or the server dying and
// the system closing its handles) ends all of it. PTY mode runs it under a
// pseudo console (ConPTY), pipe mode under three pipes. There is no SIGCHLD:
// a goroutine per command waits for its first process.

// Exit codes the engine gives meaning to: a job terminated by
// Signal(SIGKILL) ends with killExitCode, and a process that a Ctrl-C or
// Ctrl-Break ended reports STATUS_CONTROL_C_EXIT.
const (
	killExitCode       = 0xC0000000 | uint32(syscall.SIGKILL)
	statusControlCExit = 0xC000013A
)

// treePoll is how often a command's job is asked whether a process is left
// once its first process has exited.
const treePoll = 50 * time.Millisecond

var (
	kernel32            = windows.NewLazySystemDLL("kernel32.dll")
	procOpenJobObjectW  = kernel32.NewProc("OpenJobObjectW")
	procPeekNamedPipe   = kernel32.NewProc("PeekNamedPipe")
	procConsoleProcList = kernel32.NewProc("GetConsoleProcessList")
)

// procSys is what Windows needs to wait for, signal and end a command.
type procSys struct {
	proc windows.Handle // the first process
	// jobMu guards job, closed once the tree has ended or the Reaper closed.
	jobMu sync.Mutex
	job   windows.Handle
	group bool // created as a process group of its own (pipe mode)
}

// Reaper starts commands and waits for them: one goroutine per command,
// joined by Close.
type Reaper struct {
	mu     sync.Mutex
	closed bool
	quit   windows.Handle // manual-reset event, set by Close
	quitc  chan struct{}
	wg     sync.WaitGroup

	// EOFWriteTimeout bounds CloseInput in TTY mode (default 2 s), as on
	// Unix. Set it before Start.
	EOFWriteTimeout time.Duration

	closeOnce sync.Once
}

// NewReaper returns a Reaper. [Reaper.Close] stops its goroutines.
func NewReaper() (*Reaper, error) {
	quit, err := windows.CreateEvent(nil, 1, 0, nil)
	if err != nil {
		return nil, fmt.Errorf("creating reaper: %w", err)
	}
	return &Reaper{quit: quit, quitc: make(chan struct{})}, nil
}

// Close stops waiting and ends every command still running: the job
// handles close, and kill-on-close ends their trees. Their [Process.Done]
// channels stay open.
func (r *Reaper) Close() error {
	r.closeOnce.Do(func() {
		r.mu.Lock()
		r.closed = true
		r.mu.Unlock()
		close(r.quitc)
		_ = windows.SetEvent(r.quit)
		r.wg.Wait()
		_ = windows.CloseHandle(r.quit)
	})
	return nil
}

// errNotDir is the system's word for a working directory that is not one.
const errNotDir = windows.ERROR_DIRECTORY

// openStreams opens the pseudo console or the pipes the command will run
// with.
func (r *Reaper) openStreams(opts Options, p *Process) (streams, error) {
	if opts.TTY {
		return openTerminal(opts.Cols, opts.Rows, &p.closed, p)
	}
	return openPipes(&p.closed, &p.inputClosed)
}

// spawn creates the command's first process in a job object of its own
// with the streams' child ends, and starts the goroutine that waits for it.
func (r *Reaper) spawn(opts Options, p *Process) error {
	path, line := commandLine(opts.Path, opts.Args)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return errReaperClosed
	}
	pi, err := create(path, line, opts, p.io.(childSide))
	if err != nil {
		return err
	}
	job, err := confine(pi)
	if err != nil {
		return err
	}
	p.pid = int(pi.ProcessId)
	p.sys.proc, p.sys.job, p.sys.group = pi.Process, job, !opts.TTY
	r.wg.Add(1)
	go r.wait(p)
	return nil
}

// confine puts the suspended process pi in a job object of its own
// (kill-on-close), then lets it run, so everything it ever starts is in the
// job. It closes pi.Thread; on failure it also ends the process and closes
// pi.Process.
func confine(pi *windows.ProcessInformation) (windows.Handle, error) {
	defer windows.CloseHandle(pi.Thread)
	job, err := newJob(int(pi.ProcessId))
	if err == nil {
		if err = windows.AssignProcessToJobObject(job, pi.Process); err == nil {
			if _, err = windows.ResumeThread(pi.Thread); err == nil {
				return job, nil
			}
			_ = windows.TerminateJobObject(job, killExitCode)
		}
		_ = windows.CloseHandle(job)
	}
	_ = windows.TerminateProcess(pi.Process, killExitCode)
	_ = windows.CloseHandle(pi.Process)
	return 0, fmt.Errorf("starting in a job object: %w", err)
}

// childSide is what the streams give CreateProcess.
type childSide interface {
	// startup fills in the standard handles or the pseudo console, and
	// reports whether handles are inherited (only those it listed).
	startup(si *windows.StartupInfoEx, al *windows.ProcThreadAttributeListContainer) (inherit bool, err error)
}

// create starts the command suspended, so that it is in its job before it
// can start anything.
func create(path, line string, opts Options, side childSide) (*windows.ProcessInformation, error) {
	al, err := windows.NewProcThreadAttributeList(1)
	if err != nil {
		return nil, err
	}
	defer al.Delete()
	si := &windows.StartupInfoEx{}
	si.Cb = uint32(unsafe.Sizeof(*si))
	inherit, err := side.startup(si, al)
	if err != nil {
		return nil, err
	}
	si.ProcThreadAttributeList = al.List()
	flags := uint32(windows.CREATE_UNICODE_ENVIRONMENT | windows.EXTENDED_STARTUPINFO_PRESENT | windows.CREATE_SUSPENDED)
	if _, pipes := side.(*pipes); pipes {
		// Its own group, so Ctrl-Break reaches it and not the server; no
		// console window pops up when the server has no console to share.
		flags |= windows.CREATE_NEW_PROCESS_GROUP
		if !hasConsole() {
			flags |= windows.CREATE_NO_WINDOW
		}
	}
	app, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return nil, err
	}
	cmd, err := windows.UTF16PtrFromString(line)
	if err != nil {
		return nil, err
	}
	var dir *uint16
	if opts.Dir != "" {
		if dir, err = windows.UTF16PtrFromString(opts.Dir); err != nil {
			return nil, err
		}
	}
	env, err := envBlock(opts.Env)
	if err != nil {
		return nil, err
	}
	pi := new(windows.ProcessInformation)
	err = windows.CreateProcess(app, cmd, nil, nil, inherit, flags, env, dir, &si.StartupInfo, pi)
	if err != nil {
		return nil, err
	}
	return pi, nil
}

// hasConsole reports whether the server is attached to a console (with a
// window or not) that its pipe-mode children can share, for Ctrl-Break.
func hasConsole() bool {
	if procConsoleProcList.Find() != nil {
		return false
	}
	var pids [4]uint32
	n, _, _ := procConsoleProcList.Call(uintptr(unsafe.Pointer(&pids[0])), uintptr(len(pids)))
	return n != 0
}

// envBlock is env as CreateProcess takes it; nil inherits the server's.
// Names are compared case-insensitively, as Windows does, and the last
// entry for a name wins, as with os/exec.
func envBlock(env []string) (*uint16, error) {
	if env == nil {
		return nil, nil
	}
	last := make(map[string]int, len(env))
	for i, kv := range env {
		if strings.IndexByte(kv, 0) >= 0 {
			return nil, fmt.Errorf("environment variable %q holds a NUL", kv)
		}
		name, _, _ := strings.Cut(kv[min(1, len(kv)):], "=") // "=C:=C:\x" names start with '='
		last[strings.ToUpper(kv[:min(1, len(kv))]+name)] = i
	}
	var b []uint16
	for i, kv := range env {
		name, _, _ := strings.Cut(kv[min(1, len(kv)):], "=")
		if last[strings.ToUpper(kv[:min(1, len(kv))]+name)] != i {
			continue
		}
		b = append(b, utf16.Encode([]rune(kv))...)
		b = append(b, 0)
	}
	if len(b) == 0 {
		b = append(b, 0)
	}
	b = append(b, 0)
	return &b[0], nil
}

// commandLine returns the program and the command line to start it with.
// Windows passes one string; cmd.exe reads it by its own rules, so a
// "shell -c LINE" for cmd.exe becomes "/d /s /c "LINE"" (with /s cmd.exe
// drops only the outer quotes and keeps LINE as written); other programs
// get their arguments quoted the usual way.
func commandLine(path string, args []string) (string, string) {
	if len(args) == 0 {
		args = []string{path}
	}
	if path == "/bin/sh" {
		path = cmp.Or(os.Getenv("ComSpec"), `C:\Windows\System32\cmd.exe`)
	}
	base := strings.ToLower(filepath.Base(path))
	if (base == "cmd.exe" || base == "cmd") && len(args) == 3 && (args[1] == "-c" || strings.EqualFold(args[1], "/c")) {
		return path, syscall.EscapeArg(path) + ` /d /s /c "` + args[2] + `"`
	}
	q := make([]string, len(args))
	q[0] = syscall.EscapeArg(path)
	for i, a := range args[1:] {
		q[i+1] = syscall.EscapeArg(a)
	}
	return path, strings.Join(q, " ")
}

// newJob creates the command's job: kill-on-close, named after the first
// process so [TreeAlive] and [Members] can find it by pid.
func newJob(pid int) (windows.Handle, error) {
	name, err := windows.UTF16PtrFromString(jobName(pid))
	if err != nil {
		return 0, err
	}
	job, err := windows.CreateJobObject(nil, name)
	if err != nil {
		return 0, err
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{}
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		_ = windows.CloseHandle(job)
		return 0, err
	}
	return job, nil
}

// jobName names the job of the command whose first process is pid.
func jobName(pid int) string { return fmt.Sprintf(`Local\yieldshell-job-%d-%d`, os.Getpid(), pid) }

// wait waits for the first process, records its status, then waits for
// the rest of the tree before hanging up the pseudo console (which ends the
// output) and closing the job.
func (r *Reaper) wait(p *Process) {
	defer r.wg.Done()
	defer p.sys.closeJob(true)
	ev, err := windows.WaitForMultipleObjects([]windows.Handle{p.sys.proc, r.quit}, false, windows.INFINITE)
	if err != nil || ev != windows.WAIT_OBJECT_0 {
		return
	}
	// The handle is kept until the tree has ended: while it is open the pid
	// cannot be reused, so no later command's job can take this one's name.
	defer windows.CloseHandle(p.sys.proc)
	var code uint32
	_ = windows.GetExitCodeProcess(p.sys.proc, &code)
	p.status = exitStatus(code)
	close(p.done)
	t := time.NewTicker(treePoll)
	defer t.Stop()
	for p.sys.active() > 0 {
		select {
		case <-r.quitc:
			return
		case <-t.C:
		}
	}
	if term, ok := p.io.(*terminal); ok {
		term.hangUp()
	}
}

// exitStatus maps an exit code: a job the engine killed reads as SIGKILL,
// one ended by Ctrl-C or Ctrl-Break as SIGINT, as on Unix.
func exitStatus(code uint32) ExitStatus {
	switch code {
	case killExitCode:
		return ExitStatus{Code: -int(syscall.SIGKILL), Signal: syscall.SIGKILL}
	case statusControlCExit:
		return ExitStatus{Code: -int(syscall.SIGINT), Signal: syscall.SIGINT}
	}
	return ExitStatus{Code: int(int32(code))}
}

// closeJob closes the job handle; with kill set, what is left in it ends.
func (s *procSys) closeJob(kill bool) {
	s.jobMu.Lock()
	defer s.jobMu.Unlock()
	if s.job == 0 {
		return
	}
	if kill {
		_ = windows.TerminateJobObject(s.job, killExitCode)
	}
	_ = windows.CloseHandle(s.job)
	s.job = 0
}

// active counts the live processes in the job; 0 once it is closed.
func (s *procSys) active() int {
	s.jobMu.Lock()
	defer s.jobMu.Unlock()
	if s.job == 0 {
		return 0
	}
	return jobActive(s.job)
}

// jobAccounting is JOBOBJECT_BASIC_ACCOUNTING_INFORMATION.
type jobAccounting struct {
	TotalUserTime, TotalKernelTime                     int64
	ThisPeriodTotalUserTime, ThisPeriodTotalKernelTime int64
	TotalPageFaultCount, TotalProcesses                uint32
	ActiveProcesses, TotalTerminatedProcesses          uint32
}

func jobActive(job windows.Handle) int {
	var info jobAccounting
	if err := windows.QueryInformationJobObject(job, windows.JobObjectBasicAccountingInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info)), nil); err != nil {
		return 0
	}
	return int(info.ActiveProcesses)
}

// Signal asks the command's tree to end, or ends it.
//
// SIGKILL terminates the job: every process in it. Any other signal is a
// request: in PTY mode the pseudo console gets Ctrl-C (as a person would
// type it), in pipe mode the command's process group gets Ctrl-Break. When
// that cannot be delivered (a pipe-mode command on a console the server
// does not share) the job is terminated instead. With no process left it
// returns an error wrapping syscall.ESRCH.
func (p *Process) Signal(sig syscall.Signal) error {
	if err := p.signal(sig); err != nil {
		return fmt.Errorf("signalling job of %d: %w", p.pid, err)
	}
	return nil
}

func (p *Process) signal(sig syscall.Signal) error {
	if p.sys.active() == 0 {
		return syscall.ESRCH
	}
	if sig != syscall.SIGKILL {
		var err error
		if t, ok := p.io.(*terminal); ok {
			err = t.interrupt()
		} else {
			err = windows.GenerateConsoleCtrlEvent(windows.CTRL_BREAK_EVENT, uint32(p.pid))
		}
		if err == nil {
			return nil
		}
	}
	p.sys.jobMu.Lock()
	defer p.sys.jobMu.Unlock()
	if p.sys.job == 0 {
		return syscall.ESRCH
	}
	return windows.TerminateJobObject(p.sys.job, killExitCode)
}

// Resize sets the pseudo console's size; [ErrNotTTY] in pipe mode.
func (p *Process) Resize(cols, rows uint16) error {
	if cols == 0 || rows == 0 {
		return fmt.Errorf("resizing terminal: invalid size %dx%d", cols, rows)
	}
	t, ok := p.io.(*terminal)
	if !ok {
		return fmt.Errorf("resizing terminal: %w", ErrNotTTY)
	}
	if err := t.resize(cols, rows); err != nil {
		return fmt.Errorf("resizing terminal: %w", err)
	}
	return nil
}

// Size returns the pseudo console's size; zero in pipe mode or after Close.
func (p *Process) Size() (cols, rows uint16) {
	if t, ok := p.io.(*terminal); ok {
		return t.size()
	}
	return 0, 0
}

// errNoTermios: a pseudo console has no terminal modes or process groups
// to read.
var errNoTermios = errors.New("not supported by pseudo consoles")

// ForegroundPgrp is not known on Windows.
func (p *Process) ForegroundPgrp() (int, error) {
	if _, ok := p.io.(*terminal); !ok {
		return 0, fmt.Errorf("reading foreground process group: %w", ErrNotTTY)
	}
	return 0, fmt.Errorf("reading foreground process group: %w", errNoTermios)
}

// Modes is not known on Windows: a pseudo console's modes belong to the
// console, not to anything the server can read.
func (p *Process) Modes() (echo, canonical bool, err error) {
	if _, ok := p.io.(*terminal); !ok {
		return false, false, fmt.Errorf("reading terminal modes: %w", ErrNotTTY)
	}
	return false, false, fmt.Errorf("reading terminal modes: %w", errNoTermios)
}
