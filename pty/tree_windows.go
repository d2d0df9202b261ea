package pty

import (
	"context"
	"unsafe"

	"golang.org/x/sys/windows"
)

// On Windows a command's tree is its job (see [Reaper.Start]): every
// descendant is in it, detached or not, so the environment tag is not
// needed to find them.

// openJob opens the job of the command whose first process is pgid.
func openJob(pgid int) (windows.Handle, bool) {
	name, err := windows.UTF16PtrFromString(jobName(pgid))
	if err != nil || procOpenJobObjectW.Find() != nil {
		return 0, false
	}
	const jobObjectQuery = 0x0004
	h, _, _ := procOpenJobObjectW.Call(jobObjectQuery, 0, uintptr(unsafe.Pointer(name)))
	return windows.Handle(h), h != 0
}

// TreeAlive reports whether a process of the command whose first process
// is pgid is alive: its job has an active process.
func TreeAlive(pgid int, key, value string) bool {
	job, ok := openJob(pgid)
	if !ok {
		return false
	}
	defer windows.CloseHandle(job)
	return jobActive(job) > 0
}

// The start of the command, which narrows Linux's scan, is not needed:
// the job holds the whole tree.
func treeAlive(pgid int, key, value string, _ uint64) bool { return TreeAlive(pgid, key, value) }
func members(pgid int, key, value string, _ uint64) []int  { return Members(pgid, key, value) }

// Members returns the live processes of the command's job.
func Members(pgid int, key, value string) []int {
	job, ok := openJob(pgid)
	if !ok {
		return nil
	}
	defer windows.CloseHandle(job)
	// JOBOBJECT_BASIC_PROCESS_ID_LIST with room for 1024 pids.
	var list struct {
		Assigned, InList uint32
		IDs              [1024]uintptr
	}
	if err := windows.QueryInformationJobObject(job, windows.JobObjectBasicProcessIdList,
		uintptr(unsafe.Pointer(&list)), uint32(unsafe.Sizeof(list)), nil); err != nil {
		if jobActive(job) > 0 {
			return []int{pgid}
		}
		return nil
	}
	pids := make([]int, 0, list.InList)
	for _, id := range list.IDs[:min(int(list.InList), len(list.IDs))] {
		pids = append(pids, int(id))
	}
	return pids
}

// AwaitExit checks again after 100 ms, or returns when ctx is done.
func AwaitExit(ctx context.Context, pids []int) error {
	return sleepCtx(ctx, awaitPoll)
}
