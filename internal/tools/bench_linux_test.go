package tools

import (
	"io"
	"os"
	"syscall"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/sys/unix"
)

// BenchmarkExecVsFork measures exec of echo hello through the SDK (in
// memory) in both modes, side by side with the floor it is judged
// against: a bare fork+wait of the same command (/bin/sh -c, output read
// to EOF through a pipe, the exit awaited). As the server does, the
// benchmark makes itself the child subreaper. The baseline cannot call
// wait4 for its child (the Manager's Reaper reaps every child), so it
// waits for the exit on a pidfd, which costs what a wait4 does.
//
// fork_setsid_wait is the same fork in a session of its own, as every
// command is started (pid == pgid == sid: a PTY needs it, and in pipe mode
// it keeps commands off the server's controlling terminal). With the
// kernel's scheduler autogroups on, setsid(2) makes a new task group; its
// cost ranged from nothing to 0.7 ms a fork on the 2-core VM, with load.
//
// Compare the medians of exec_pipe and exec_pty with fork_wait over
// -count=6 or more; the goal is at most 1.5x.
func BenchmarkExecVsFork(b *testing.B) {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		b.Skip(err)
	}
	_, cs := benchServer(b)
	exec := func(tty bool) func(b *testing.B) {
		return func(b *testing.B) {
			args := map[string]any{"command": "echo hello", "side_effects": []string{"NONE"}, "tty": tty}
			for b.Loop() {
				res, err := cs.CallTool(b.Context(), &mcp.CallToolParams{Name: "exec", Arguments: args})
				if err != nil || res.IsError {
					b.Fatal(err, res)
				}
				if out := res.StructuredContent.(map[string]any); out["status"] != "completed" || out["stdout"] != "hello\n" {
					b.Fatalf("answer %v", out)
				}
			}
		}
	}
	for _, base := range []struct {
		name string
		sys  *syscall.SysProcAttr
	}{{"fork_wait", nil}, {"fork_setsid_wait", &syscall.SysProcAttr{Setsid: true}}} {
		b.Run(base.name, func(b *testing.B) {
			for b.Loop() {
				if out := forkWait(b, base.sys, "/bin/sh", "-c", "echo hello"); out != "hello\n" {
					b.Fatalf("output %q", out)
				}
			}
		})
	}
	b.Run("exec_pipe", exec(false))
	b.Run("exec_pty", exec(true))
}

// forkWait runs a command with its output on a pipe, reads the output to
// EOF and waits for the exit through a pidfd.
func forkWait(b *testing.B, sys *syscall.SysProcAttr, path string, args ...string) string {
	r, w, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	proc, err := os.StartProcess(path, append([]string{path}, args...), &os.ProcAttr{Files: []*os.File{nil, w, w}, Sys: sys})
	w.Close()
	if err != nil {
		b.Fatal(err)
	}
	fd, err := unix.PidfdOpen(proc.Pid, 0)
	_ = proc.Release()
	out, rerr := io.ReadAll(r)
	if rerr != nil {
		b.Fatal(rerr)
	}
	if err == nil { // ESRCH: already exited and reaped
		defer unix.Close(fd)
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		for {
			if _, err := unix.Poll(fds, -1); err != unix.EINTR {
				break
			}
		}
	}
	return string(out)
}
