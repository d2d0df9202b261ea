//go:build linux

package prompt

import (
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	cpty "github.com/creack/pty"
)

// A shell waiting for input while a job of its own group computes: its
// group is busy, the shell alone (Only) is reading. fish's first start
// is so: it builds completions in a job of its group while at its prompt.
func TestInspectOnly(t *testing.T) {
	master, slave, err := cpty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer master.Close()
	defer slave.Close()
	cmd := exec.Command("/bin/sh", "-c", "(while :; do :; done) & echo ready; read x")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	t.Cleanup(func() { _ = syscall.Kill(-pid, syscall.SIGKILL); _ = cmd.Wait() })
	buf := make([]byte, 16)
	if n, err := master.Read(buf); err != nil || !strings.Contains(string(buf[:n]), "ready") {
		t.Fatalf("child did not start: %q %v", buf[:n], err)
	}
	in := Input{Session: pid, Pgrp: pid, Path: slave.Name()}
	only := in
	only.Only = pid
	pr := NewProber()
	var group, shell Probe
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); {
		group, shell = pr.Inspect(in), pr.Inspect(only)
		if group.Activity == Busy && shell.Activity == Reading {
			break
		}
		time.Sleep(10 * time.Millisecond) // the kernel has no event for "now blocked"
	}
	if group.Activity != Busy || shell.Activity != Reading {
		t.Errorf("group %s, shell alone %s; want busy and reading", group.Activity, shell.Activity)
	}
}
