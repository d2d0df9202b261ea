package proc

import (
	"os"
	"runtime"
	"syscall"
	"testing"
)

// The thread that reads its own stat is running while it reads it, on a
// busy machine as on an idle one.
func TestReadTaskStatSelf(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	st, err := ReadTaskStat(os.Getpid(), syscall.Gettid())
	if err != nil || st.State != 'R' || !st.Runnable() || st.PPid != os.Getppid() {
		t.Errorf("ReadTaskStat(self, this thread) = %+v, %v", st, err)
	}
}
