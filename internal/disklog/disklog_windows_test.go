package disklog

import (
	"os"
	"strings"
	"testing"

	"golang.org/x/sys/windows"

	"github.com/yieldshell/yieldshell/internal/testdir"
)

// TestDiskLogRotationWhileTailed: a reader that holds the log file without
// sharing delete access (PowerShell's Get-Content -Wait) keeps it from
// being renamed; the log appends on past the cap rather than stop, and
// rotates once the reader has let go.
func TestDiskLogRotationWhileTailed(t *testing.T) {
	d, path, lf := openTestLog(t, testdir.New(t), 100)

	p, _ := windows.UTF16PtrFromString(path)
	tail, err := windows.CreateFile(p, windows.GENERIC_READ, windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE, nil,
		windows.OPEN_EXISTING, windows.FILE_ATTRIBUTE_NORMAL, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.write(path, lf, []byte(strings.Repeat("x", 250))); err != nil {
		t.Fatalf("writing while the file is tailed: %v", err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Size() != 250 {
		t.Errorf("while tailed the file holds %v bytes (%v), want all 250", fi.Size(), err)
	}
	windows.CloseHandle(tail)

	if err := d.write(path, lf, []byte(strings.Repeat("y", 150))); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Size() > 100 {
		t.Errorf("after the reader let go, the file holds %v bytes (%v), want at most 100", fi.Size(), err)
	}
	if fi, err := os.Stat(path + ".1"); err != nil || fi.Size() != 300 {
		t.Errorf("the rotated file: %v bytes (%v), want the 300 written before", fi.Size(), err)
	}
}
