package proc

import (
	"slices"
	"testing"
)

// descendants walks down a process tree that changes while it is read: a
// process whose parent ends is handed to the root (the child subreaper)
// after the root's children were read, and is still found.
func TestDescendants(t *testing.T) {
	type tree map[int][]int
	for _, tc := range []struct {
		name string
		// reads are the trees the walk sees, one after each read of the
		// root's children.
		reads []tree
		want  []int
	}{
		{"a tree", []tree{{1: {2, 3}, 2: {4}, 4: {5}}}, []int{2, 3, 4, 5}},
		{"none", []tree{{}}, nil},
		{"handed to the root while read", []tree{
			{1: {2}, 2: {3}, 3: {}},       // 3 ended, its child 4 handed to 1
			{1: {2, 4}, 2: {3}, 4: {5}},   // the second read of 1 finds 4
			{1: {2, 4, 6}, 4: {5}, 6: {}}, // and the third 6, 5's orphan
		}, []int{2, 3, 4, 5, 6}},
		{"listed by two parents", []tree{{1: {2, 3}, 2: {3}}}, []int{2, 3}},
		{"a loop (pid reuse)", []tree{{1: {2}, 2: {3}, 3: {2}}}, []int{2, 3}},
		{"the root listed as a child", []tree{{1: {2}, 2: {1}}}, []int{2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reads := 0
			childrenOf := func(pid int) []int {
				if pid == 1 {
					reads++
				}
				cur := tc.reads[min(reads, len(tc.reads))-1]
				return slices.Clone(cur[pid])
			}
			if got := descendants(1, childrenOf); !slices.Equal(got, tc.want) {
				t.Errorf("descendants = %v, want %v", got, tc.want)
			}
		})
	}
}
