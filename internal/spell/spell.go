// Package spell finds the word someone probably meant: the nearest of a
// list of valid words to a misspelled one, for error messages that name
// it ("did you mean YIELDSHELL_ALLOWED_CWDS?"). It has no state.
package spell

import "strings"

// Nearest returns the word in valid closest to word: one equal but for
// case first, else the one at the least edit distance, if that is at most
// a third of word's length (a slip, not another word). "" when none is.
func Nearest(word string, valid []string) string {
	for _, v := range valid {
		if strings.EqualFold(v, word) {
			return v
		}
	}
	best, bestD := "", len(word)/3+1
	for _, v := range valid {
		if d := distance(strings.ToLower(word), strings.ToLower(v)); d < bestD {
			best, bestD = v, d
		}
	}
	return best
}

// distance is the Levenshtein distance between a and b, in bytes.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
