package human

import (
	_ "embed"
	"regexp"
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

// sourceMap matches the comment that points a browser's developer tools
// at a source map this server does not serve.
var sourceMap = regexp.MustCompile(`(?m)^//# sourceMappingURL=.*$`)

// xtermLib is the library's scripts as one inline script.
var xtermLib = sourceMap.ReplaceAllString(xtermJS, "") + "\n" + sourceMap.ReplaceAllString(xtermFitJS, "")
