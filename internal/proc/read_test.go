package proc

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// readFile returns a file whole whatever its size against the buffer, and
// fails as os.ReadFile does for one that is missing.
func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		size int
		buf  int
	}{
		{"empty", 0, 16},
		{"fits", 100, 512},
		{"fills the buffer exactly", 512, 512},
		{"outgrows the buffer", 5000, 512},
		{"no buffer", 3000, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := []byte(strings.Repeat("0123456789", tc.size/10+1)[:tc.size])
			p := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_"))
			if err := os.WriteFile(p, want, 0o600); err != nil {
				t.Fatal(err)
			}
			got, err := readFile(p, make([]byte, tc.buf))
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("readFile = %d bytes, %v; want %d bytes", len(got), err, len(want))
			}
		})
	}
	_, err := readFile(filepath.Join(dir, "missing"), nil)
	var pe *fs.PathError
	if !errors.Is(err, fs.ErrNotExist) || !errors.As(err, &pe) || pe.Op != "open" {
		t.Fatalf("missing file: %v, want an open *fs.PathError for a file that does not exist", err)
	}
	if _, err := readOnce(filepath.Join(dir, "missing"), nil); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("readOnce of a missing file: %v", err)
	}
}
