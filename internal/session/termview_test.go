package session

import (
	"bytes"
	"slices"
	"testing"
)

// The pending output of an unread screen stays within pendingCap, in
// length and in capacity, and is always the newest output.
func TestTermViewPendingIsBounded(t *testing.T) {
	for _, tc := range []struct {
		name  string
		sizes []int
	}{
		{"small writes", []int{1, 10, 100, 1000}},
		{"reads of a terminal", slices.Repeat([]int{4095}, 40)},
		{"a write larger than the cap", []int{100, pendingCap + 3, 7}},
		{"a write of half the cap", []int{pendingCap - 5, pendingCap / 2, pendingCap/2 - 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := newTermView(80, 24)
			var all []byte
			for i, n := range tc.sizes {
				b := bytes.Repeat([]byte{byte('a' + i%26)}, n)
				b[0] = '0' + byte(i%10) // so that a wrong order shows
				all = append(all, b...)
				v.add(b)
				if len(v.pending) > pendingCap || cap(v.pending) > pendingCap {
					t.Fatalf("write %d: pending len %d cap %d, more than %d", i, len(v.pending), cap(v.pending), pendingCap)
				}
				if !bytes.HasSuffix(all, v.pending) {
					t.Fatalf("write %d: pending is not the newest output", i)
				}
				if len(all) <= pendingCap && (len(v.pending) != len(all) || v.lost) {
					t.Fatalf("write %d: %d of %d bytes pending, lost %v", i, len(v.pending), len(all), v.lost)
				}
				if len(all) > pendingCap && (!v.lost || len(v.pending) < min(len(b), pendingCap/2)) {
					t.Fatalf("write %d: %d bytes pending after %d, lost %v", i, len(v.pending), len(all), v.lost)
				}
			}
		})
	}
}
