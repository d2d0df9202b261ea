package prompt_test

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"time"

	"github.com/yieldshell/yieldshell/prompt"
)

// The kernel probe on a real child: cat, in a session of its own, blocks
// reading its standard input, a pipe; the kernel says so.
func ExampleProber_Inspect() {
	cmd := exec.Command("cat")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := cmd.Start(); err != nil {
		fmt.Println(err)
		return
	}
	defer func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		_ = stdin.Close()
	}()
	pid := cmd.Process.Pid
	path, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/fd/0") // "pipe:[inode]"
	if err != nil {
		fmt.Println(err)
		return
	}

	pr := prompt.NewProber()
	in := prompt.Input{Session: pid, Path: path} // no Pgrp: a pipe, any process of the session
	var probe prompt.Probe
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if probe = pr.Inspect(in); probe.Activity == prompt.Reading {
			break
		}
	}
	fmt.Println(probe.Activity, probe.Reader.Pid == pid)
	// Output: reading true
}
