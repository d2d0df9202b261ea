package policy

import (
	"bytes"
	"cmp"
	"errors"
	"slices"
	"strings"
)

// minSecretLen is the shortest value Secrets reports. 0.4.0 redacted values
// of any length, so SHORT_KEY=e turned every "e" of output into a marker;
// values this short are also too easy to guess to be worth hiding.
const minSecretLen = 8

// Secret is one value to redact and the variable it came from.
type Secret struct{ Name, Value string }

// Secrets returns the values to redact: those of env entries ("KEY=value")
// whose names match Rules.RedactEnv. Pass the server's environment first and the
// command's overlay last: a later entry for the same name replaces an
// earlier one, as it does in the command's environment. Values shorter than
// 8 bytes are skipped; a value shared by several names is reported once,
// under the alphabetically first name. The result is sorted longest first,
// the order in which a Redactor prefers matches.
func (c *Config) Secrets(env ...[]string) []Secret {
	if c.Rules.RedactEnv == nil {
		return nil
	}
	byName := map[string]string{}
	for _, list := range env {
		for _, kv := range list {
			name, value, ok := strings.Cut(kv, "=")
			if !ok || name == "" || !c.Rules.RedactEnv.MatchString(name) {
				continue
			}
			byName[name] = value
		}
	}
	byValue := map[string]string{}
	for name, value := range byName {
		if len(value) < minSecretLen {
			continue
		}
		if prev, ok := byValue[value]; !ok || name < prev {
			byValue[value] = name
		}
	}
	out := make([]Secret, 0, len(byValue))
	for value, name := range byValue {
		out = append(out, Secret{Name: name, Value: value})
	}
	slices.SortFunc(out, longestFirst)
	return out
}

// SecretVars returns the entries of env ("KEY=value") whose names match
// Rules.RedactEnv, in order: passed to Secrets in env's place, they give
// the same secrets, and a list read for every command is matched once.
func (c *Config) SecretVars(env []string) []string {
	if c.Rules.RedactEnv == nil {
		return nil
	}
	var out []string
	for _, kv := range env {
		if name, _, ok := strings.Cut(kv, "="); ok && name != "" && c.Rules.RedactEnv.MatchString(name) {
			out = append(out, kv)
		}
	}
	return out
}

func longestFirst(a, b Secret) int {
	if c := cmp.Compare(len(b.Value), len(a.Value)); c != 0 {
		return c
	}
	return strings.Compare(a.Value, b.Value)
}

// Redactor replaces secrets in a byte stream, holding back a tail that could
// be the start of a secret split across writes.
//
// Redacting at ingest, in the stream, means a secret never reaches the output
// log, so it cannot leak through a read cut or a ring-buffer eviction that
// splits it (0.4.0 redacted each response and missed both). The output is
// the same however the stream is split into writes: at each position the
// longest secret that matches is replaced, and a position is only decided
// once enough bytes have arrived to decide it.
//
// A Redactor is not safe for concurrent use; each stream owns one.
type Redactor struct {
	secrets []redactSecret // longest first
	// first maps a byte to 1 + the index in groups of the secrets that start
	// with it, or 0 when none does.
	first  [256]uint16
	groups [][]int
	// starts is a bitset of the first two bytes of each secret (every second
	// byte for a one-byte secret); inner holds the pairs at offsets
	// 0..minLen-2 of each secret, for the sampled scan (see candidate).
	starts, inner *pairSet
	minLen        int
	maxLen        int

	held []byte // undecided tail: a proper prefix of some secret
	tmp  []byte // held plus the head of the next write
}

type redactSecret struct {
	value, repl []byte
}

// NewRedactor returns a redactor for secrets; nil or empty means a
// pass-through. Empty values are ignored and duplicate values kept once (the
// first name wins). NewRedactor enforces no minimum length: Secrets does.
func NewRedactor(secrets []Secret) *Redactor {
	r := &Redactor{}
	r.build(secrets)
	return r
}

// Reset makes r redact secrets from now on, as NewRedactor(secrets) would,
// keeping what it holds back undecided: those bytes are decided by the new
// secrets, with the next write. A process whose secrets grow mid-stream (a
// password typed into it) redacts the new one from the next byte on,
// including a tail held back for an older secret.
func (r *Redactor) Reset(secrets []Secret) {
	held, tmp := r.held, r.tmp
	*r = Redactor{}
	r.build(secrets)
	r.held, r.tmp = held, tmp
}

func (r *Redactor) build(secrets []Secret) {
	sorted := slices.Clone(secrets)
	slices.SortStableFunc(sorted, func(a, b Secret) int { return cmp.Compare(len(b.Value), len(a.Value)) })
	seen := map[string]bool{}
	for _, s := range sorted {
		if s.Value == "" || seen[s.Value] {
			continue
		}
		seen[s.Value] = true
		r.secrets = append(r.secrets, redactSecret{
			value: []byte(s.Value),
			repl:  []byte("[REDACTED:" + s.Name + "]"),
		})
	}
	if len(r.secrets) == 0 {
		return
	}
	r.starts, r.inner = new(pairSet), new(pairSet)
	r.minLen = len(r.secrets[len(r.secrets)-1].value)
	for i, s := range r.secrets {
		b := s.value[0]
		if r.first[b] == 0 {
			r.groups = append(r.groups, nil)
			r.first[b] = uint16(len(r.groups))
		}
		g := r.first[b] - 1
		r.groups[g] = append(r.groups[g], i)
		r.maxLen = max(r.maxLen, len(s.value))
		if len(s.value) == 1 {
			for c := range 256 {
				r.starts.add(b, byte(c))
			}
		} else {
			r.starts.add(b, s.value[1])
		}
		for j := 0; j+1 < r.minLen; j++ {
			r.inner.add(s.value[j], s.value[j+1])
		}
	}
}

// Write appends the redacted bytes of p that are safe to emit to dst and
// returns the extended slice; dst and p must not overlap. Bytes that might
// begin a secret continued by the next write are held back until then (at
// most the length of the longest secret minus one).
func (r *Redactor) Write(dst, p []byte) []byte {
	if r == nil {
		return append(dst, p...)
	}
	if len(r.secrets) == 0 {
		dst = append(dst, r.held...) // held for secrets a Reset removed
		r.held = r.held[:0]
		return append(dst, p...)
	}
	if len(r.held) > 0 {
		// Decide the held positions using just enough of p to settle them,
		// rather than copying all of p behind the held bytes.
		k := min(len(p), r.maxLen)
		r.tmp = append(append(r.tmp[:0], r.held...), p[:k]...)
		var next int
		var hold bool
		dst, next, hold = r.scan(dst, r.tmp, len(r.held), false)
		if hold {
			// Only possible when k == len(p): all of p is in tmp.
			r.held = append(r.held[:0], r.tmp[next:]...)
			return dst
		}
		p = p[next-len(r.held):]
		r.held = r.held[:0]
	}
	dst, next, hold := r.scan(dst, p, len(p), false)
	if hold {
		r.held = append(r.held[:0], p[next:]...)
	}
	return dst
}

// Flush appends everything held back to dst, redacting any complete secret
// in it; call it at the end of the stream. The redactor may be reused.
func (r *Redactor) Flush(dst []byte) []byte {
	if r == nil || len(r.held) == 0 {
		return dst
	}
	dst, _, _ = r.scan(dst, r.held, len(r.held), true)
	r.held = r.held[:0]
	return dst
}

// Held returns the bytes held back: a proper prefix of a secret that the
// next write decides. The slice is the Redactor's; do not keep it.
func (r *Redactor) Held() []byte {
	if r == nil {
		return nil
	}
	return r.held
}

// scan redacts buf into dst, deciding positions before stop; a match that
// starts before stop may end after it. It returns the position it reached,
// or, with hold set, the position from which buf must be held back because
// it is a proper prefix of a secret (never when final).
func (r *Redactor) scan(dst, buf []byte, stop int, final bool) (_ []byte, next int, hold bool) {
	lit, pos := 0, 0
	for pos < stop {
		j := r.candidate(buf[:stop], pos)
		if j < 0 {
			pos = stop
			break
		}
		rem := buf[j:]
		match := -1
		for _, i := range r.groups[r.first[buf[j]]-1] {
			s := r.secrets[i].value
			if len(rem) < len(s) {
				if !final && bytes.HasPrefix(s, rem) {
					return append(dst, buf[lit:j]...), j, true
				}
				continue
			}
			if bytes.HasPrefix(rem, s) {
				match = i
				break
			}
		}
		if match < 0 {
			pos = j + 1
			continue
		}
		s := &r.secrets[match]
		dst = append(dst, buf[lit:j]...)
		dst = append(dst, s.repl...)
		pos = j + len(s.value)
		lit = pos
	}
	return append(dst, buf[lit:pos]...), pos, false
}

// candidate returns the first index at or after from where some secret could
// start, or -1. This is the hot loop: on output with no secret nearby it is
// all the redactor does.
//
// A start qualifies when its byte and the next are the first two of some
// secret; the last position, with no next byte in buf, qualifies on its first
// byte alone. Checking every position that way costs about a nanosecond a
// byte, so when every secret has at least 4 bytes the scan first samples one
// pair every minLen-1 positions: any occurrence of a secret starting at p
// covers the pairs at p..p+minLen-2, exactly one of which is sampled, so a
// sampled pair that occurs in no secret's first minLen bytes rules out every
// start in the minLen-1 positions before it. Only near a sampled hit, and in
// the last stretch of buf (where a secret may begin but not end), are
// positions checked one by one.
func (r *Redactor) candidate(buf []byte, from int) int {
	step := r.minLen - 1
	if step < 3 {
		return r.startScan(buf, from, len(buf))
	}
	q := from + step - 1 // first sample: pair (q, q+1)
	for ; q+1 < len(buf); q += step {
		if r.inner.has(buf[q], buf[q+1]) {
			if j := r.startScan(buf, max(from, q-step+1), q+1); j >= 0 {
				return j
			}
		}
	}
	return r.startScan(buf, max(from, q-step+1), len(buf))
}

// startScan returns the first i in [from, to) where a secret could start:
// buf[i], buf[i+1] begin one, or i is the last index of buf and buf[i] begins
// one. It returns -1 if there is none.
func (r *Redactor) startScan(buf []byte, from, to int) int {
	last := len(buf) - 1
	if from >= to {
		return -1
	}
	starts := r.starts
	k := uint(buf[from])
	for i, b := range buf[from+1 : min(to+1, len(buf))] {
		k = (k<<8 | uint(b)) & 0xffff
		if starts[k>>6]&(1<<(k&63)) != 0 {
			return from + i
		}
	}
	if to > last && r.first[buf[last]] != 0 {
		return last
	}
	return -1
}

// pairSet is a set of byte pairs: 8 KiB, so lookups stay in L1.
type pairSet [1 << 16 / 64]uint64

func (s *pairSet) add(a, b byte) {
	k := uint(a)<<8 | uint(b)
	s[k>>6] |= 1 << (k & 63)
}

func (s *pairSet) has(a, b byte) bool {
	k := uint(a)<<8 | uint(b)
	return s[k>>6]&(1<<(k&63)) != 0
}

// Redact returns s with every secret in it replaced.
func Redact(secrets []Secret, s string) string {
	if len(secrets) == 0 || s == "" {
		return s
	}
	r := NewRedactor(secrets)
	return string(r.Flush(r.Write(nil, []byte(s))))
}

// RedactError returns err with every secret in its text replaced. A
// *Refusal stays one, so callers still learn the rule; any other error
// still unwraps to err.
func RedactError(secrets []Secret, err error) error {
	msg := Redact(secrets, err.Error())
	if msg == err.Error() {
		return err
	}
	if r, ok := errors.AsType[*Refusal](err); ok {
		return &Refusal{Rule: r.Rule, Message: msg, Askable: r.Askable}
	}
	return redactedError{msg: msg, err: err}
}

// redactedError is an error whose text had secrets in it.
type redactedError struct {
	msg string
	err error
}

func (e redactedError) Error() string { return e.msg }
func (e redactedError) Unwrap() error { return e.err }
