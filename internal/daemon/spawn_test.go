//go:build linux

package daemon

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/yieldshell/yieldshell/internal/poll"
)

// TestMain lets the test binary stand in for `yieldshell server run` when
// Client.Start spawns it.
func TestMain(m *testing.M) {
	if len(os.Args) == 5 && os.Args[1] == "server" && os.Args[2] == "run" {
		os.Exit(fakeServer())
	}
	os.Exit(m.Run())
}

// fakeServer listens where the real server would, says it is ready on fd
// 3, and welcomes every hello until it is killed.
func fakeServer() int {
	dir, err := RuntimeDir(os.Getenv)
	if err != nil {
		return 1
	}
	ln, err := net.Listen("unix", filepath.Join(dir, SocketName))
	if err != nil {
		return 1
	}
	ready := os.NewFile(3, "ready")
	fmt.Fprintln(ready, "ok")
	ready.Close()
	for {
		c, err := ln.Accept()
		if err != nil {
			return 1
		}
		_, _ = bufio.NewReader(c).ReadBytes('\n')
		b, _ := json.Marshal(Welcome{OK: true, Version: "test", PID: os.Getpid()})
		_, _ = c.Write(append(b, '\n'))
		c.Close()
	}
}

// TestStartReapsTheServer: a server started by a client that still runs
// is reaped by that client when it dies, instead of staying a zombie that
// the next server would take for alive.
func TestStartReapsTheServer(t *testing.T) {
	base, err := os.MkdirTemp("", "ys") // socket paths must be short
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	t.Setenv(RuntimeDirEnv, base)
	dir, err := RuntimeDir(os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	cl := &Client{Dir: dir, Version: "test", Notes: io.Discard}
	w, started, err := cl.Start()
	if err != nil || !started {
		t.Fatalf("Start: %+v, %v, %v", w, started, err)
	}
	t.Cleanup(func() { _ = syscall.Kill(w.PID, syscall.SIGKILL) })
	if err := syscall.Kill(w.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	stat := fmt.Sprintf("/proc/%d/stat", w.PID)
	poll.Until(t, 10*time.Second, "the killed server is reaped", func() bool {
		_, err := os.Stat(stat)
		return err != nil
	})
}
