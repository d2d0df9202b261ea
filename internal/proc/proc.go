// Package proc reads Linux's /proc: it is the one place that knows its
// paths and formats. Every package that asks the kernel about processes
// (the engine's process trees and signals, the input-wait probe, the
// shell-yeah tools' CPU check) reads through it.
//
// Everything here is plain file reading, so it builds everywhere; where
// there is no /proc (macOS, Windows) the readers return errors and the
// callers fall back as they always did. ReadMem alone is Linux-only.
package proc

import (
	"bytes"
	"os"
	"strconv"
	"strings"
)

// root is where the kernel mounts the process file system.
const root = "/proc"

// Root is where the kernel mounts the process file system, for a caller
// that must keep away from it (a sandbox never offers it as writable).
func Root() string { return root }

// path returns the path of file in process pid's directory.
func path(pid int, file string) string {
	return root + "/" + strconv.Itoa(pid) + "/" + file
}

// taskPath returns the path of file in thread tid of process pid.
func taskPath(pid, tid int, file string) string {
	return root + "/" + strconv.Itoa(pid) + "/task/" + strconv.Itoa(tid) + "/" + file
}

// Pids lists every process on the machine, in the order /proc gives them.
func Pids() ([]int, error) { return numbered(root) }

// Tasks lists the threads of process pid.
func Tasks(pid int) ([]int, error) { return numbered(root + "/" + strconv.Itoa(pid) + "/task") }

// numbered returns the entries of dir whose names are numbers.
func numbered(dir string) ([]int, error) {
	d, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	names, err := d.Readdirnames(-1)
	_ = d.Close()
	ids := make([]int, 0, len(names))
	for _, name := range names {
		if name == "" || name[0] < '0' || name[0] > '9' {
			continue
		}
		if id, err := strconv.Atoi(name); err == nil {
			ids = append(ids, id)
		}
	}
	return ids, err
}

// Children lists this process's children (every thread's), from
// /proc/self/task/TID/children.
func Children() []int {
	tasks, _ := os.ReadDir(root + "/self/task")
	var pids []int
	for _, t := range tasks {
		b, err := readFile(root+"/self/task/"+t.Name()+"/children", nil)
		if err != nil {
			continue
		}
		for f := range bytes.FieldsSeq(b) {
			if pid, err := strconv.Atoi(string(f)); err == nil {
				pids = append(pids, pid)
			}
		}
	}
	return pids
}

// ReadComm returns process pid's command name (/proc/PID/comm).
func ReadComm(pid int) (string, error) {
	var buf [64]byte
	b, err := readFile(path(pid, "comm"), buf[:])
	return string(bytes.TrimSpace(b)), err
}

// ReadFDLink returns what descriptor fd of process pid refers to
// (/proc/PID/fd/FD): a path, or a kind such as "anon_inode:[eventpoll]".
func ReadFDLink(pid, fd int) (string, error) {
	return os.Readlink(path(pid, "fd/"+strconv.Itoa(fd)))
}

// ReadFDInfo returns /proc/PID/fdinfo/FD: for an epoll instance, the
// descriptors it watches, one "tfd:" line each.
func ReadFDInfo(pid, fd int) ([]byte, error) {
	return readFile(path(pid, "fdinfo/"+strconv.Itoa(fd)), nil)
}

// SelfFD is the path under which a process reaches its own descriptor fd
// (/proc/self/fd/FD): a directory opened without following links can be
// changed into by it.
func SelfFD(fd int) string { return root + "/self/fd/" + strconv.Itoa(fd) }

// ReadCwd returns process pid's working directory (/proc/PID/cwd).
func ReadCwd(pid int) (string, error) { return os.Readlink(path(pid, "cwd")) }

// ForProcess rewrites a path that process pid would resolve through its
// own /proc/self or /proc/thread-self so that another process resolves
// it the same way.
func ForProcess(p string, pid int) string {
	for _, self := range []string{root + "/self", root + "/thread-self"} {
		if p == self || strings.HasPrefix(p, self+"/") {
			return root + "/" + strconv.Itoa(pid) + p[len(self):]
		}
	}
	return p
}
