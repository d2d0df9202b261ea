package human

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"sync"
	"time"
)

// tokenBytes is the token's entropy: 256 bits.
const tokenBytes = 32

// tokenLen is the length of a token's text (unpadded base64url).
var tokenLen = base64.RawURLEncoding.EncodedLen(tokenBytes)

// newToken returns a fresh token from crypto/rand.
func newToken() (string, error) {
	b := make([]byte, tokenBytes)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("making a token: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// tokenKey is what pages are found by: a hash, so the map lookup's timing
// tells nothing about the token, which is then compared in constant time.
func tokenKey(tok string) [32]byte { return sha256.Sum256([]byte(tok)) }

// validToken reports whether s has a token's form.
func validToken(s string) bool {
	if len(s) != tokenLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// state is where a page is in its life.
type state int

const (
	open  state = iota
	busy        // a Submit is running; other submits are refused
	ended       // outcome is set
)

// Page is one page. Its methods are safe for concurrent use.
type Page struct {
	p        *Pages
	id       int // names the page in logs
	token    string
	key      [32]byte
	req      Request
	url      string
	deadline time.Time
	opened   chan struct{} // closed at the first view
	done     chan struct{} // closed when outcome is set
	keysMu   sync.Mutex    // one Keys call at a time, in arrival order

	// Guarded by p.mu.
	st       state
	outcome  Outcome
	endedAt  time.Time
	watchers int       // live views (event streams) of a handover page
	leaveAt  time.Time // when a handover page without a live view is left
	viewed   bool
	withdraw bool // Withdraw came while busy
}

// URL is the page's address, token included: for the person only.
func (pg *Page) URL() string { return pg.url }

// Deadline is when the page expires.
func (pg *Page) Deadline() time.Time { return pg.deadline }

// Opened is closed when the page is first viewed: from then on a person
// may be typing (a handover's terminal is theirs).
func (pg *Page) Opened() <-chan struct{} { return pg.opened }

// Done is closed when the page has ended; Outcome then says how.
func (pg *Page) Done() <-chan struct{} { return pg.done }

// Outcome is how the page ended, or "" while it is open.
func (pg *Page) Outcome() Outcome {
	pg.p.mu.Lock()
	defer pg.p.mu.Unlock()
	return pg.outcome
}

// Wait blocks until the page ends or ctx is done.
func (pg *Page) Wait(ctx context.Context) (Outcome, error) {
	select {
	case <-pg.done:
		return pg.Outcome(), nil
	case <-ctx.Done():
		return "", fmt.Errorf("waiting for a person: %w", ctx.Err())
	}
}

// Withdraw ends an open page with Withdrawn (the program ended, the agent
// gave up). A Submit in flight still completes; if it fails, the page ends
// withdrawn then.
func (pg *Page) Withdraw() {
	pg.p.mu.Lock()
	defer pg.p.mu.Unlock()
	switch pg.st {
	case open:
		pg.endLocked(Withdrawn)
	case busy:
		pg.withdraw = true
	}
}

// Finish ends a page because its program ended: a handover page a person
// has opened ends Done (what they did with the terminal is finished), any
// other is withdrawn.
func (pg *Page) Finish() {
	pg.p.mu.Lock()
	if pg.st == open && pg.viewed && pg.req.Terminal != nil {
		pg.endLocked(Done)
	}
	pg.p.mu.Unlock()
	pg.Withdraw()
}

func (pg *Page) kind() string {
	if pg.req.Secret != nil {
		return "secret"
	}
	return "handover"
}

// endLocked sets the outcome once; p.mu is held.
func (pg *Page) endLocked(o Outcome) {
	if pg.st == ended {
		return
	}
	pg.st, pg.outcome, pg.endedAt = ended, o, time.Now()
	close(pg.done)
	pg.p.log.Info("human page ended", "page", pg.id, "outcome", string(o))
	pg.p.kick()
}

// lookup finds the page of tok; p.mu is held. The map is keyed by a hash
// of the token and the token itself is compared in constant time.
func (p *Pages) lookup(tok string) *Page {
	if !validToken(tok) {
		return nil
	}
	pg := p.pages[tokenKey(tok)]
	if pg == nil || subtle.ConstantTimeCompare([]byte(pg.token), []byte(tok)) != 1 {
		return nil
	}
	return pg
}
