package human

import (
	_ "embed"
	"strings"
)

// The handover page's terminal is xterm.js (MIT, internal/human/xterm/
// LICENSE; versions pinned in xterm/package-lock.json) and its fit addon,
// embedded in the binary and inlined into the page: nothing is loaded
// from anywhere, and the page's Content-Security-Policy allows exactly
// these scripts by their hashes.
var (
	//go:embed xterm/xterm.js
	xtermJS string
	//go:embed xterm/addon-fit.js
	xtermFitJS string
	//go:embed xterm/xterm.css
	xtermCSS string
)

// handoverAssets are what every handover page inlines and its policy
// allows by hash: made by the first handover page a server shows (the
// library is half a megabyte: copying and hashing it cost every start of
// the binary a millisecond when it was done at initialisation).
type handoverAssets struct {
	lib, css string
	// The policy (cspHandover) is cspBefore + a response's nonce + cspAfter.
	cspBefore, cspAfter string
}

func newHandoverAssets() *handoverAssets {
	lib := withoutSourceMaps(xtermJS) + "\n" + withoutSourceMaps(xtermFitJS)
	return &handoverAssets{lib: lib, css: handoverCSS,
		cspBefore: "default-src 'none'; style-src " + hashSource(handoverCSS) + " 'nonce-",
		cspAfter: "'; script-src " + hashSource(lib) + " " + hashSource(script) +
			"; connect-src 'self'; img-src 'none'; font-src 'none'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"}
}

// sourceMapLine starts the comment that points a browser's developer tools
// at a source map this server does not serve.
const sourceMapLine = "//# sourceMappingURL="

// withoutSourceMaps returns js without its source-map comment lines. It
// runs at start-up over the whole library, so it scans with strings.Index
// rather than a regular expression (which took 5 ms of every start).
func withoutSourceMaps(js string) string {
	var b strings.Builder
	for {
		i := strings.Index(js, sourceMapLine)
		if i < 0 {
			b.WriteString(js)
			return b.String()
		}
		end := strings.IndexByte(js[i:], '\n')
		if i > 0 && js[i-1] != '\n' { // not at a line's start: keep it
			if end < 0 {
				b.WriteString(js)
				return b.String()
			}
			b.WriteString(js[:i+end+1])
			js = js[i+end+1:]
			continue
		}
		b.WriteString(js[:i])
		if end < 0 {
			return b.String()
		}
		js = js[i+end+1:]
	}
}
