// Package human serves one-time web pages through which a person, not the
// agent, answers a program: a secret page takes a password and hands it to
// the program's terminal; a handover page shows the live terminal screen and
// sends the person's keystrokes until they press Done.
//
// The package knows no terminal. The session side implements [SecretSink]
// (type a secret, only if the program still waits for one) or [Terminal] (a
// screen source and a key sink), and learns how the page ended from the
// [Page]: [Submitted], [Done], [Declined], [Left] or [Withdrawn].
//
// # Serving
//
// A [Pages] created with an empty [Config.BaseURL] serves itself: the first
// [Pages.Open] listens on 127.0.0.1:0 (loopback only), for stdio mode. With a
// BaseURL, the caller mounts [Pages.Handler] on its own listener under that
// URL's path (e.g. /human/), outside its bearer-token check: a page needs no
// other credential than its token.
//
// # Security
//
// A page's URL is BaseURL followed by its token: 32 bytes from crypto/rand,
// base64url (256 bits), compared in constant time, valid until the page's
// deadline and for one outcome. Every request must name the expected Host
// (the listener's loopback address, or BaseURL's host), which defeats DNS
// rebinding, and must carry no query string, so a secret can never travel in
// a URL or a history entry. Every state-changing request is a POST whose
// provenance is checked: Sec-Fetch-Site same-origin where the browser sends
// it, else an Origin equal to BaseURL's, else a Referer of that origin; a
// POST with none of them is refused. A refused request changes nothing and
// does not use the page up; a successful submit, Done or Decline does, and
// the page then answers 410 Gone. Pages carry Cache-Control: no-store, a
// strict Content-Security-Policy (nothing loaded from anywhere; inline style
// and script allowed by hash), Referrer-Policy: no-referrer, X-Frame-Options:
// DENY and X-Content-Type-Options: nosniff. The secret form works without
// JavaScript; the field has autocomplete off and the submit answers with a
// 303 redirect to a result page, so reloading or going back never re-sends it.
//
// The secret is read into one buffer, decoded in place, given to
// [SecretSink.Submit] and zeroed when Submit returns; it is never logged (no
// level logs it) and never put in an error. Copies the HTTP server's or the
// kernel's own buffers held are out of reach. Tokens are never logged either:
// log lines name a page by a counter ("page 3").
//
// Residual risk: the token is the only credential. Another local user (or
// anything else) that learns the URL before the page is used or expires can
// submit or watch. The URL is only given to the agent's client to show to
// its user; do not log it. On a non-loopback --http listener without TLS the
// page and the secret cross the network in clear text, and browsers send
// neither Sec-Fetch-Site (only sent to https and loopback) nor a usable
// Origin (a form's POST from a no-referrer page carries "Origin: null"), so
// such a POST is refused: serve it over HTTPS.
//
// # Concurrency
//
// A Pages is safe for concurrent use. It owns one reaper goroutine (expiry
// and leave detection) started by [New] and, in self-serving mode, one HTTP
// server started by the first Open; [Pages.Close] withdraws every open page,
// makes every handler of this package return, and joins them all. Every
// call that blocks takes a context first. [SecretSink.Submit] and
// [Terminal.Keys] are called from request handlers with no lock held, one
// at a time per page; [Terminal.Screen] may be called from several at once.
package human
