package human

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Bounds on what a request may carry.
const (
	maxFormBody = 8192 // a secret form: the secret, percent-encoded, and the action
	maxKeysBody = 4096 // one batch of keystrokes
	maxWatchers = 8    // live views of one handover page
	// minFrame spaces screen updates, so a spinner does not flood the
	// stream; changes in between are folded into the next update.
	minFrame = 50 * time.Millisecond
)

// serveHTTP routes a request: BaseURL path + token, then "" (the page:
// GET views it, POST acts on it), "result", "events", "keys" or "resize".
func (p *Pages) serveHTTP(w http.ResponseWriter, r *http.Request) {
	setHeaders(w.Header(), cspPlain)
	if !p.enter() {
		http.Error(w, "these pages are closed", http.StatusServiceUnavailable)
		return
	}
	defer p.handlers.Done()

	p.mu.Lock()
	base, prefix, origin := p.base, p.prefix, p.origin
	p.mu.Unlock()
	if base == nil {
		p.refuse(w, nil, http.StatusNotFound, "not serving yet", "This link is not valid.")
		return
	}
	if !sameHost(r.Host, base) {
		p.refuse(w, nil, http.StatusForbidden, "wrong Host header (DNS rebinding?)", "This address is not served here.")
		return
	}
	if r.URL.RawQuery != "" || r.URL.ForceQuery {
		// Nothing here takes a query: a secret in a URL would stay in
		// history and logs. Refused before the page is even looked up.
		p.refuse(w, nil, http.StatusBadRequest, "query string", "This page takes no query string: send the form with its button.")
		return
	}
	rest, ok := strings.CutPrefix(r.URL.Path, prefix)
	if !ok {
		p.refuse(w, nil, http.StatusNotFound, "outside the pages' path", "This link is not valid.")
		return
	}
	tok, sub, _ := strings.Cut(rest, "/")
	p.mu.Lock()
	pg := p.lookup(tok)
	if pg != nil && pg.st == open && !time.Now().Before(pg.deadline) {
		pg.endLocked(Left) // the reaper would, any moment now
	}
	p.mu.Unlock()
	if pg == nil {
		p.refuse(w, nil, http.StatusNotFound, "unknown token", "This link is not valid, or its page has expired.")
		return
	}
	route := r.Method + " " + sub
	if pg.req.Terminal == nil && (sub == "events" || sub == "keys" || sub == "resize") {
		route = "none"
	}
	switch route {
	case "GET ":
		p.view(w, pg)
	case "POST ":
		if p.checkOrigin(w, r, pg, origin) {
			p.act(w, r, pg)
		}
	case "GET result":
		p.result(w, pg)
	case "GET events":
		if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" {
			p.refuse(w, pg, http.StatusForbidden, "event stream from another site", "Forbidden.")
			return
		}
		p.events(w, r, pg)
	case "POST keys":
		if p.checkOrigin(w, r, pg, origin) {
			p.keys(w, r, pg)
		}
	case "POST resize":
		if p.checkOrigin(w, r, pg, origin) {
			p.resize(w, r, pg)
		}
	default:
		switch sub {
		case "", "result", "events", "keys", "resize":
			p.refuse(w, pg, http.StatusMethodNotAllowed, "method "+r.Method+" on "+sub, "Method not allowed.")
		default:
			p.refuse(w, pg, http.StatusNotFound, "unknown path", "This link is not valid.")
		}
	}
}

// enter counts a handler call in, unless Pages is closed.
func (p *Pages) enter() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return false
	}
	p.handlers.Add(1)
	return true
}

// setHeaders sets what every answer carries.
func setHeaders(h http.Header, csp string) {
	h.Set("Cache-Control", "no-store")
	h.Set("Pragma", "no-cache")
	h.Set("Content-Security-Policy", csp)
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	h.Set("Cross-Origin-Resource-Policy", "same-origin")
}

// sameHost reports whether the request's Host names base's host (a
// default port may be left out on either side).
func sameHost(host string, base *url.URL) bool {
	return strings.EqualFold(withPort(host, base.Scheme), withPort(base.Host, base.Scheme))
}

func withPort(host, scheme string) string {
	if _, _, err := net.SplitHostPort(host); err == nil {
		return host
	}
	port := "80"
	if scheme == "https" {
		port = "443"
	}
	return net.JoinHostPort(strings.Trim(host, "[]"), port)
}

// checkOrigin refuses a POST that does not come from the page itself (a
// cross-site form or fetch): Sec-Fetch-Site where the browser sends it,
// else Origin, else Referer; with none of them, it is refused.
func (p *Pages) checkOrigin(w http.ResponseWriter, r *http.Request, pg *Page, origin string) bool {
	why := provenance(r, origin)
	if why == "" {
		return true
	}
	p.refuse(w, pg, http.StatusForbidden, why, "This request did not come from the page itself.")
	return false
}

// provenance says why r may not come from a page of origin ("": it does).
func provenance(r *http.Request, origin string) string {
	o := r.Header.Get("Origin")
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" {
		if site != "same-origin" {
			return "Sec-Fetch-Site " + site
		}
		if o != "" && o != "null" && !strings.EqualFold(o, origin) {
			return "wrong Origin"
		}
		return ""
	}
	if o != "" && o != "null" {
		if !strings.EqualFold(o, origin) {
			return "wrong Origin"
		}
		return ""
	}
	if ref := r.Header.Get("Referer"); ref != "" {
		u, err := url.Parse(ref)
		if err != nil || !strings.EqualFold(u.Scheme+"://"+u.Host, origin) {
			return "wrong Referer"
		}
		return ""
	}
	return "no Sec-Fetch-Site, Origin or Referer"
}

// view renders the page: the secret form or the handover view.
func (p *Pages) view(w http.ResponseWriter, pg *Page) {
	p.mu.Lock()
	st, outcome := pg.st, pg.outcome
	if st != ended {
		if !pg.viewed {
			pg.viewed = true
			close(pg.opened)
		}
		if pg.req.Terminal != nil && pg.watchers == 0 {
			// The live view connects right after; until it does (and
			// whenever it drops) the grace runs.
			pg.leaveAt = time.Now().Add(p.leaveGrace)
			p.kick()
		}
	}
	p.mu.Unlock()
	if st == ended {
		p.gone(w, pg, outcome)
		return
	}
	v := p.pageView(pg)
	if pg.req.Terminal != nil {
		v.Title = "A terminal is handed to you"
		v.Screen, _ = pg.req.Terminal.Screen()
		a := p.assets()
		v.Script, v.Lib, v.CSS, v.Nonce = script, template.JS(a.lib), template.CSS(a.css), rand.Text()
		setHeaders(w.Header(), a.cspHandover(v.Nonce))
		p.render(w, http.StatusOK, "handover", v)
		return
	}
	v.Title = "A program asks for a password"
	p.render(w, http.StatusOK, "secret", v)
}

func (p *Pages) pageView(pg *Page) view {
	return view{
		Program: pg.req.Program,
		Message: pg.req.Message,
		Prompt:  pg.req.Prompt,
		Action:  p.prefix + pg.token,
		Expires: "in " + roughly(time.Until(pg.deadline)),
	}
}

// roughly says d for a person: "3 minutes", "40 seconds".
func roughly(d time.Duration) string {
	switch {
	case d >= 2*time.Hour:
		return fmt.Sprintf("%d hours", int(d/time.Hour))
	case d >= 2*time.Minute:
		return fmt.Sprintf("%d minutes", int(d/time.Minute))
	case d > time.Second:
		return fmt.Sprintf("%d seconds", int(d/time.Second))
	}
	return "now"
}

// act handles the page's POST: a secret, Done or Decline.
func (p *Pages) act(w http.ResponseWriter, r *http.Request, pg *Page) {
	if ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); ct != "application/x-www-form-urlencoded" {
		p.refuse(w, pg, http.StatusUnsupportedMediaType, "content type "+ct, "Send the form with its button.")
		return
	}
	// One buffer holds the body, and the secret decoded in place, so
	// zeroing it leaves no copy of ours behind.
	buf := make([]byte, maxFormBody+1)
	defer clear(buf)
	n, err := io.ReadFull(r.Body, buf)
	switch {
	case n > maxFormBody:
		p.refuse(w, pg, http.StatusRequestEntityTooLarge, "form too large", "The form is too large.")
		return
	case err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF):
		p.refuse(w, pg, http.StatusBadRequest, "reading the form failed", "The form did not arrive.")
		return
	}
	f, ok := parseForm(buf[:n])
	if !ok {
		p.refuse(w, pg, http.StatusBadRequest, "malformed form", "The form did not arrive intact.")
		return
	}
	action := string(f.action)
	if action == "" && f.hasSecret {
		action = "submit"
	}
	secret := pg.req.Secret != nil
	switch {
	case action == "decline":
	case action == "submit" && secret && f.hasSecret:
	case action == "done" && !secret:
	default:
		p.refuse(w, pg, http.StatusBadRequest, "no such action here", "This page does not take that.")
		return
	}

	p.mu.Lock()
	switch pg.st {
	case ended:
		outcome := pg.outcome
		p.mu.Unlock()
		p.gone(w, pg, outcome)
		return
	case busy:
		p.mu.Unlock()
		p.refuse(w, pg, http.StatusConflict, "a submit is in progress", "Another answer is being delivered.")
		return
	}
	switch action {
	case "decline":
		pg.endLocked(Declined)
	case "done":
		pg.endLocked(Done)
	case "submit":
		pg.st = busy
	}
	p.mu.Unlock()
	if action == "submit" {
		err = p.submit(r.Context(), pg, f.secret)
		clear(f.secret)
		if err != nil {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			p.log.Info("human page: the secret was not taken", "page", pg.id)
			p.render(w, http.StatusConflict, "message", view{
				Title: "Not sent", Class: "bad", BackHref: p.backHref(pg),
				Text: "The program did not take it: " + err.Error(),
			})
			return
		}
	}
	http.Redirect(w, r, p.prefix+pg.token+"/result", http.StatusSeeOther)
}

// submit runs Submit on a busy page and settles its state: Submitted on
// success; else open again, or ended if it expired or was withdrawn
// meanwhile.
func (p *Pages) submit(rctx context.Context, pg *Page, secret []byte) error {
	ctx, cancel := context.WithCancel(rctx)
	defer cancel()
	stop := context.AfterFunc(p.ctx, cancel)
	defer stop()
	err := pg.req.Secret.Submit(ctx, secret)
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case err == nil:
		pg.endLocked(Submitted)
	case pg.withdraw || p.closed:
		pg.endLocked(Withdrawn)
	case !time.Now().Before(pg.deadline):
		pg.endLocked(Left)
	default:
		pg.st = open
	}
	return err
}

// backHref links back to a page that is still open, for a retry.
func (p *Pages) backHref(pg *Page) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if pg.st == ended {
		return ""
	}
	return p.prefix + pg.token
}

// result shows how an ended page ended (the target of the 303).
func (p *Pages) result(w http.ResponseWriter, pg *Page) {
	p.mu.Lock()
	st, outcome := pg.st, pg.outcome
	p.mu.Unlock()
	if st != ended {
		p.refuse(w, pg, http.StatusConflict, "result of an open page", "This page is still open.")
		return
	}
	v := view{Class: "ok"}
	switch outcome {
	case Submitted:
		v.Title, v.Text = "Sent", "The program received what you typed. This page is used up."
	case Done:
		v.Title, v.Text = "Handed back", "The terminal is the agent's again."
	case Declined:
		v.Title, v.Text, v.Class = "Declined", "The agent is told you declined.", ""
	default:
		v.Title, v.Text, v.Class = "Ended", "This page has ended ("+string(outcome)+").", ""
	}
	p.render(w, http.StatusOK, "message", v)
}

// gone answers for a page that has ended: 410.
func (p *Pages) gone(w http.ResponseWriter, pg *Page, outcome Outcome) {
	if outcome == Done {
		// Finished, not failed: a reload after Done, or after the
		// program ended while the person held its terminal.
		p.log.Info("human page viewed after it ended", "page", pg.id, "outcome", string(outcome))
		p.render(w, http.StatusGone, "message", view{Title: "Done", Text: "This page has been used: the terminal is the agent's again, and nothing more is needed here.", Class: "ok"})
		return
	}
	text := "This page has been used and is gone."
	switch outcome {
	case Left:
		text = "This page has expired."
	case Withdrawn:
		text = "This page was withdrawn."
	}
	p.refuse(w, pg, http.StatusGone, "page ended ("+string(outcome)+")", text)
}

// refuse answers code with text for the person and logs why (never a
// secret or a token).
func (p *Pages) refuse(w http.ResponseWriter, pg *Page, code int, why, text string) {
	id := 0
	if pg != nil {
		id = pg.id
	}
	p.log.Info("human page request refused", "page", id, "status", code, "why", why)
	if code == http.StatusForbidden || code == http.StatusBadRequest {
		w.Header().Set("Connection", "close")
	}
	p.render(w, code, "message", view{Title: http.StatusText(code), Text: text, Class: "bad"})
}

// render writes a page from the templates.
func (p *Pages) render(w http.ResponseWriter, code int, name string, v view) {
	if v.CSS == "" {
		v.CSS = css
	}
	var b bytes.Buffer
	if err := pageTemplates.ExecuteTemplate(&b, name, v); err != nil {
		p.log.Error("human page: rendering", "template", name, "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(code)
	_, _ = w.Write(b.Bytes())
}

// frame is one event of a handover page's stream.
type frame struct {
	Screen string  `json:"screen"` // the text, for readers without the terminal
	ANSI   string  `json:"ansi"`   // the screen as a terminal redraws it
	Cols   int     `json:"cols,omitempty"`
	Rows   int     `json:"rows,omitempty"`
	Ended  Outcome `json:"ended,omitempty"`
}

// events streams a handover page's screen as server-sent events, one per
// change (at most one per minFrame), and a last one when the page ends.
// While a stream is open the person counts as present.
func (p *Pages) events(w http.ResponseWriter, r *http.Request, pg *Page) {
	p.mu.Lock()
	switch {
	case pg.st == ended:
		outcome := pg.outcome
		p.mu.Unlock()
		p.gone(w, pg, outcome)
		return
	case pg.watchers >= maxWatchers:
		p.mu.Unlock()
		p.refuse(w, pg, http.StatusTooManyRequests, "too many live views", "Too many views of this page are open.")
		return
	}
	pg.watchers++
	pg.leaveAt = time.Time{}
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		pg.watchers--
		if pg.watchers == 0 && pg.st != ended {
			pg.leaveAt = time.Now().Add(p.leaveGrace)
			p.kick()
		}
		p.mu.Unlock()
	}()

	rc := http.NewResponseController(w)
	_ = rc.SetWriteDeadline(time.Time{}) // a stream outlives a server's write timeout
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	send := func(f frame) bool {
		b, _ := json.Marshal(f)
		if _, err := fmt.Fprintf(w, "data: %s\n\n", b); err != nil {
			return false
		}
		return rc.Flush() == nil
	}
	last := "\x00" // differs from every screen: the first is always sent
	pause := time.NewTimer(minFrame)
	defer pause.Stop()
	current := func() (frame, <-chan struct{}) {
		text, _ := pg.req.Terminal.Screen()
		ansi, cols, rows, changed := pg.req.Terminal.ANSI()
		return frame{Screen: text, ANSI: ansi, Cols: cols, Rows: rows}, changed
	}
	for {
		f, changed := current()
		if f.ANSI != last {
			if !send(f) {
				return
			}
			last = f.ANSI
			// Changes during the pause are folded into the next frame.
			pause.Reset(minFrame)
			select {
			case <-pause.C:
				continue
			case <-r.Context().Done():
				return
			case <-p.ctx.Done():
				return
			}
		}
		select {
		case <-changed:
		case <-pg.done:
			f.Ended = pg.Outcome()
			send(f)
			return
		case <-r.Context().Done():
			return
		case <-p.ctx.Done():
			return
		}
	}
}

// resize sets a handover page's terminal to the person's window: the body
// is COLSxROWS, as the page's terminal measured it. 204 when done.
func (p *Pages) resize(w http.ResponseWriter, r *http.Request, pg *Page) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 32))
	var cols, rows int
	if err == nil {
		_, err = fmt.Sscanf(string(body), "%dx%d", &cols, &rows)
	}
	if err != nil {
		p.refuse(w, pg, http.StatusBadRequest, "bad size", "The size did not arrive.")
		return
	}
	p.mu.Lock()
	st, outcome := pg.st, pg.outcome
	p.mu.Unlock()
	if st == ended {
		p.gone(w, pg, outcome)
		return
	}
	if err := pg.req.Terminal.Resize(cols, rows); err != nil {
		p.log.Info("human page: size not taken", "page", pg.id, "cols", cols, "rows", rows)
		w.WriteHeader(http.StatusConflict)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// keys sends a handover page's keystrokes to the terminal, one request at
// a time in order: 204 when sent.
func (p *Pages) keys(w http.ResponseWriter, r *http.Request, pg *Page) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxKeysBody+1))
	switch {
	case err != nil:
		p.refuse(w, pg, http.StatusBadRequest, "reading keys failed", "The keys did not arrive.")
		return
	case len(body) > maxKeysBody:
		p.refuse(w, pg, http.StatusRequestEntityTooLarge, "too many keys at once", "Too much at once.")
		return
	}
	pg.keysMu.Lock()
	defer pg.keysMu.Unlock()
	p.mu.Lock()
	st, outcome := pg.st, pg.outcome
	p.mu.Unlock()
	if st == ended {
		p.gone(w, pg, outcome)
		return
	}
	if len(body) > 0 {
		ctx, cancel := context.WithCancel(r.Context())
		defer cancel()
		stop := context.AfterFunc(p.ctx, cancel)
		defer stop()
		if err := pg.req.Terminal.Keys(ctx, body); err != nil {
			p.log.Info("human page: keys not taken", "page", pg.id)
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.WriteHeader(http.StatusConflict)
			_, _ = io.WriteString(w, err.Error())
			return
		}
	}
	w.WriteHeader(http.StatusNoContent)
}
