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
	"slices"
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

// ChildrenOf lists process pid's children: those of every thread, since
// a child's parent is the thread that forked it (a Go program forks from
// any of its threads). Where the kernel has no children files (it was
// built without them) the list is empty.
func ChildrenOf(pid int) []int {
	tasks := root + "/" + strconv.Itoa(pid) + "/task"
	tids, _ := numbered(tasks)
	var pids []int
	var buf [256]byte
	for _, tid := range tids {
		b, err := readFile(tasks+"/"+strconv.Itoa(tid)+"/children", buf[:])
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

// Descendants lists top's descendants, parents before their children,
// walking down the children files: what it costs follows the size of
// top's tree, not of the machine's. A process can change parents while
// it is walked: when its parent ends, the kernel hands it to the child
// subreaper, top where top is one. So top's children are read again at
// the end, until nothing new turns up. (One handed to a descendant that
// is itself a subreaper can still be missed by one walk.)
func Descendants(top int) []int { return descendants(top, ChildrenOf) }

// descendants is Descendants with each process's children listed by
// childrenOf.
func descendants(top int, childrenOf func(int) []int) []int {
	seen := map[int]bool{top: true}
	var out []int
	for {
		queue := slices.DeleteFunc(childrenOf(top), func(pid int) bool { return seen[pid] })
		if len(queue) == 0 {
			return out
		}
		for len(queue) > 0 {
			pid := queue[0]
			queue = queue[1:]
			if seen[pid] {
				continue
			}
			seen[pid] = true
			out = append(out, pid)
			queue = append(queue, childrenOf(pid)...)
		}
	}
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
