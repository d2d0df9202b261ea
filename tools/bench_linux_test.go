package tools

import (
	"io"
	"maps"
	"os"
	osexec "os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/sys/unix"

	"github.com/yieldshell/yieldshell/internal/policy"
)

// BenchmarkExecVsFork measures exec of echo hello through the SDK (in
// memory) in both modes, side by side with the floor it is judged
// against: a bare fork+wait of the same command (under the server's
// default shell, as exec runs it; output read to EOF through a pipe, the
// exit awaited). As the server is, the test binary is the child subreaper
// (TestMain). The baseline cannot call
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
	_, cs := benchServer(b)
	shell := defaultShell(b, nil)
	exec := func(tty bool) func(b *testing.B) {
		return func(b *testing.B) {
			execEchoHello(b, cs, map[string]any{"tty": tty})
		}
	}
	for _, base := range []struct {
		name string
		sys  *syscall.SysProcAttr
	}{{"fork_wait", nil}, {"fork_setsid_wait", &syscall.SysProcAttr{Setsid: true}}} {
		b.Run(base.name, func(b *testing.B) {
			for b.Loop() {
				if out := forkWait(b, base.sys, shell, policy.ShellArgs(shell, "echo hello", true)[1:]...); out != "hello\n" {
					b.Fatalf("output %q", out)
				}
			}
		})
	}
	b.Run("exec_pipe", exec(false))
	b.Run("exec_pty", exec(true))
}

// BenchmarkExecShell measures what the default shell costs: exec of
// "true" under /bin/sh (dash on Debian) and under bash, in pipe and PTY
// mode, each beside a bare fork+wait of the same shell running "true",
// and of /bin/true, a program (which bash execs in its own process and
// dash forks). child-cpu-us/op is the CPU time of the shell and what it
// ran: on a loaded machine it is the figure to compare.
// bash starts slower than dash; it is the default because it reports a
// program's own exit code after a Ctrl-C (issue 32). Compare the medians
// of sh/* and bash/* over -count=6.
func BenchmarkExecShell(b *testing.B) {
	bash, err := osexec.LookPath("bash")
	if err != nil {
		b.Skip("bash not installed")
	}
	for _, sh := range []struct{ name, path string }{{"sh", policy.SystemShell}, {"bash", bash}} {
		// One server at a time: each Manager's reaper reaps every child
		// of the process, so two would take each other's.
		b.Run(sh.name, func(b *testing.B) {
			env := map[string]string{"YIELDSHELL_SHELL": sh.path}
			_, cs := benchServerEnv(b, env)
			shell := defaultShell(b, env)
			b.Run("fork_setsid_wait", func(b *testing.B) {
				defer reportChildCPU(b)()
				for b.Loop() {
					forkWait(b, &syscall.SysProcAttr{Setsid: true}, shell, policy.ShellArgs(shell, "true", true)[1:]...)
				}
			})
			for _, c := range []struct {
				name, command string
				tty           bool
			}{{"exec_pipe", "true", false}, {"exec_pty", "true", true}, {"exec_pty_program", "/bin/true", true}} {
				b.Run(c.name, func(b *testing.B) {
					args := map[string]any{"command": c.command, "side_effects": []string{"NONE"}, "tty": c.tty}
					defer reportChildCPU(b)()
					for b.Loop() {
						res, err := cs.CallTool(b.Context(), &mcp.CallToolParams{Name: "exec", Arguments: args})
						if err != nil || res.IsError {
							b.Fatal(err, res)
						}
						if out := res.StructuredContent.(map[string]any); out["status"] != "completed" || out["exit_code"] != 0.0 {
							b.Fatalf("answer %v", out)
						}
					}
				})
			}
		})
	}
}

// reportChildCPU starts counting the CPU time (user and system) of the
// children reaped from now on; the function it returns reports it per
// operation as child-cpu-us/op, which the machine's load disturbs far less
// than ns/op.
func reportChildCPU(b *testing.B) func() {
	cpu := func() time.Duration {
		var ru unix.Rusage
		if err := unix.Getrusage(unix.RUSAGE_CHILDREN, &ru); err != nil {
			b.Fatal(err)
		}
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	start := cpu()
	return func() {
		if b.N > 0 {
			b.ReportMetric(float64((cpu()-start).Microseconds())/float64(b.N), "child-cpu-us/op")
		}
	}
}

// defaultShell is the shell a server configured by env runs commands under.
func defaultShell(b *testing.B, env map[string]string) string {
	cfg, err := policy.Load(func(k string) string { return env[k] }, b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	return cfg.DefaultShell()
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

// execEchoHello calls exec of echo hello, with args added, b.N times.
func execEchoHello(b *testing.B, cs *mcp.ClientSession, args map[string]any) {
	args = maps.Clone(args)
	args["command"], args["side_effects"] = "echo hello", []string{"NONE"}
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
