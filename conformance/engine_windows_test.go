package conformance

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/sys/windows"

	"github.com/yieldshell/yieldshell/internal/testdir"
)

// The Windows engine end to end: commands run under cmd.exe, and every
// process a command started ends with it, however it ends.

// winHelperArg makes the test binary a Windows helper (before TestMain).
const winHelperArg = "ys-winhelper"

func init() {
	if len(os.Args) > 2 && os.Args[1] == winHelperArg {
		os.Exit(winHelper(os.Args[2], os.Args[3:]))
	}
}

// winHelper runs helper name. Each writes its pid as a file into the
// directory args[0], then sleeps until it is ended.
func winHelper(name string, args []string) int {
	dir := args[0]
	note := func() {
		_ = os.WriteFile(filepath.Join(dir, strconv.Itoa(os.Getpid())), nil, 0o600)
	}
	switch name {
	case "sleep":
	case "ignore": // ignores Ctrl-C and Ctrl-Break
		signal.Ignore(os.Interrupt)
	case "detach": // starts a detached grandchild, then sleeps itself
		c := exec.Command(os.Args[0], winHelperArg, "sleep", dir)
		c.SysProcAttr = &syscall.SysProcAttr{CreationFlags: windows.CREATE_NEW_PROCESS_GROUP | windows.DETACHED_PROCESS}
		if err := c.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	default:
		return 2
	}
	note()
	time.Sleep(time.Hour)
	return 0
}

// winCmd is a cmd.exe command line running a Windows helper.
func winCmd(name, dir string) string {
	return fmt.Sprintf(`"%%%s%%" %s %s "%s"`, helperEnv, winHelperArg, name, dir)
}

// Spec: issue 18 item 1: "PTY mode runs each command under a pseudo console ... and pipe mode under three pipes"; "exit_code and ended_by are as on Linux."
func TestWindowsExec(t *testing.T) {
	s := start(t, "2025-06-18")
	r := s.exec("echo hello & exit /b 3", map[string]any{"tty": false}).mustStatus(t, "completed")
	if got := r.str("stdout"); !strings.Contains(got, "hello") {
		t.Errorf("stdout = %q", got)
	}
	if r.num("exit_code") != 3 || r.str("ended_by") != "exit" {
		t.Errorf("exit_code = %v, ended_by = %q", r.m["exit_code"], r.str("ended_by"))
	}
	r = s.exec("echo to the console> CONOUT$", nil).mustStatus(t, "completed")
	if got := r.str("stdout"); !strings.Contains(got, "to the console") {
		t.Errorf("PTY output = %q", got)
	}
}

// pids lists the helpers that wrote their pid into dir.
func pids(dir string) []int {
	ents, _ := os.ReadDir(dir)
	var out []int
	for _, e := range ents {
		if pid, err := strconv.Atoi(e.Name()); err == nil {
			out = append(out, pid)
		}
	}
	return out
}

// awaitGone fails unless process pid ends within d.
func awaitGone(t *testing.T, pid int, d time.Duration) {
	t.Helper()
	h, err := windows.OpenProcess(windows.SYNCHRONIZE, false, uint32(pid))
	if err != nil {
		return // gone already
	}
	defer windows.CloseHandle(h)
	if ev, _ := windows.WaitForSingleObject(h, uint32(d/time.Millisecond)); ev != windows.WAIT_OBJECT_0 {
		t.Errorf("process %d is still running (an orphan)", pid)
		if k, err := windows.OpenProcess(windows.PROCESS_TERMINATE, false, uint32(pid)); err == nil {
			_ = windows.TerminateProcess(k, 1)
			windows.CloseHandle(k)
		}
	}
}

// TestWindowsNoOrphans: a background child, a detached grandchild and a
// child that ignores Ctrl-C all end with their command, whether stop,
// timeout_ms or the client going away (stdin EOF) ends it.
//
// Spec: issue 18: "the no-orphans matrix (background child, detached grandchild, a child that ignores Ctrl-C) × (stop, timeout, stdin EOF)".
func TestWindowsNoOrphans(t *testing.T) {
	kinds := []struct {
		name string
		cmd  func(dir string) string
		n    int // processes that note their pid
	}{
		{"background child", func(d string) string {
			return `start "" /b ` + winCmd("sleep", d) + " & " + winCmd("sleep", d)
		}, 2},
		{"detached grandchild", func(d string) string { return winCmd("detach", d) }, 2},
		{"ignores ctrl-c", func(d string) string { return winCmd("ignore", d) }, 1},
	}
	for _, k := range kinds {
		for _, tty := range []bool{false, true} {
			for _, end := range []string{"stop", "timeout", "stdin EOF"} {
				t.Run(fmt.Sprintf("%s/tty=%v/%s", k.name, tty, end), func(t *testing.T) {
					dir := testdir.New(t)
					s := start(t, "2025-06-18")
					args := map[string]any{"tty": tty, "yield_ms": 100}
					if end == "timeout" {
						// Long enough for the helpers to start under wine.
						args["timeout_ms"] = 8000
					}
					r := s.exec(k.cmd(dir), args)
					id := r.str("process_id")
					eventually(t, 30*time.Second, "the helpers to start", func() bool { return len(pids(dir)) >= k.n })
					began := time.Now()
					switch end {
					case "stop":
						s.call("stop", map[string]any{"process_id": id, "force_after_ms": 1000})
					case "timeout":
						eventually(t, 20*time.Second, "the timeout", func() bool {
							return s.call("wait", map[string]any{"process_id": id, "yield_ms": 1000}).str("status") != "backgrounded"
						})
					case "stdin EOF":
						if err := s.cs.Close(); err != nil {
							t.Logf("closing: %v", err)
						}
					}
					for _, pid := range pids(dir) {
						awaitGone(t, pid, 15*time.Second)
					}
					t.Logf("all %d processes gone %v after the %s", len(pids(dir)), time.Since(began).Round(time.Millisecond), end)
				})
			}
		}
	}
}

// BenchmarkWindowsExecEcho times exec of cmd /c echo hello through the
// server (pipe mode) next to a Go program spawning and waiting for the
// same command: compare the two, not the absolute times.
func BenchmarkWindowsExecEcho(b *testing.B) {
	b.Run("yieldshell", func(b *testing.B) {
		cmd := exec.Command(binPath)
		client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "0"}, nil)
		ctx := context.Background()
		cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 5 * time.Second},
			&mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
		if err != nil {
			b.Fatal(err)
		}
		defer cs.Close()
		args := map[string]any{"command": "echo hello", "side_effects": []string{"NONE"}, "tty": false}
		for b.Loop() {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "exec", Arguments: args})
			if err != nil || res.IsError {
				b.Fatal(err, res)
			}
		}
	})
	b.Run("direct", func(b *testing.B) {
		for b.Loop() {
			if err := exec.Command("cmd.exe", "/c", "echo hello").Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
