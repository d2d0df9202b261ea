//go:build unix

package pty_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/yieldshell/yieldshell/pty"
)

// Start a command under a pseudo-terminal, read everything it wrote and
// its exit status. The Reaper is the process's only waiter for children:
// its user starts it, and closes it when done.
func ExampleReaper_Start() {
	r, err := pty.NewReaper()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer r.Close()
	p, err := r.Start(pty.Options{Path: "/bin/sh", Args: []string{"sh", "-c", "tty >/dev/null && echo on a terminal; exit 3"}, TTY: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer p.Close()
	out, _ := io.ReadAll(p.Stdout()) // EOF once nothing holds the terminal
	<-p.Done()
	fmt.Printf("%q, exit code %d\n", out, p.Status().Code)
	// Output: "on a terminal\r\n", exit code 3
}

// Kill a command and everything it started, including a descendant that
// left its process group, found by an environment tag the command's tree
// carries. SetChildSubreaper makes orphans of the tree this process's
// children, so that the Reaper collects them and the search for tagged
// descendants reads only this process's own.
func ExampleProcess_SignalTree() {
	_ = pty.SetChildSubreaper() // Linux only: elsewhere orphans go to init
	r, err := pty.NewReaper()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer r.Close()
	const key, value = "EXAMPLE_TREE", "tree-1"
	p, err := r.Start(pty.Options{
		Path: "/bin/sh",
		Args: []string{"sh", "-c", "setsid sleep 60 & sleep 60 & echo started; wait"},
		Env:  append(os.Environ(), key+"="+value),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer p.Close()
	line := make([]byte, 64)
	n, _ := p.Stdout().Read(line)
	fmt.Print(strings.TrimSpace(string(line[:n])), "\n")

	_ = p.SignalTree(syscall.SIGKILL, key, value)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	<-p.Done()
	fmt.Println("signal:", p.Status().Signal)
	if err := p.AwaitTree(ctx, key, value); err == nil {
		fmt.Println("nothing of the tree is left")
	}
	// Output:
	// started
	// signal: killed
	// nothing of the tree is left
}

// Drive a program through pipes: write its input, close it, and read what
// it answered.
func ExampleProcess_WriteInput() {
	r, err := pty.NewReaper()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer r.Close()
	p, err := r.Start(pty.Options{Path: "/bin/sh", Args: []string{"sh", "-c", "tr a-z A-Z"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer p.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := p.WriteInput(ctx, []byte("hello\n")); err != nil {
		fmt.Println(err)
		return
	}
	_ = p.CloseInput()
	out, _ := io.ReadAll(p.Stdout())
	<-p.Done()
	fmt.Printf("%s", out)
	// Output: HELLO
}
