package sandbox

import (
	"strconv"
	"strings"
)

// seatbeltExec is macOS's sandbox launcher: it applies a profile to
// itself and execs the command.
const seatbeltExec = "/usr/bin/sandbox-exec"

// SeatbeltProfile is the Seatbelt (SBPL) profile for p on macOS: writes
// only beneath p.Writable (and the devices), never to a repository's
// hooks or config or p.Protected; with the network off, only Unix
// sockets; no signals out of the sandbox. It is compiled by sandbox-exec
// on macOS and untested here (docs/sandbox.md).
func SeatbeltProfile(p *Policy) string {
	var b strings.Builder
	b.WriteString("(version 1)\n(allow default)\n(deny file-write*)\n(allow file-write*")
	for _, w := range p.Writable {
		b.WriteString("\n    (subpath " + sbplString(w) + ")")
	}
	for _, d := range devices {
		b.WriteString("\n    (literal " + sbplString(d) + ")")
	}
	b.WriteString("\n    (regex #\"^/dev/ttys[0-9]+$\"))\n")
	b.WriteString("(deny file-write* (regex #\"/\\.git/(hooks|config)(/|$)\")")
	for _, q := range p.Protected {
		b.WriteString("\n    (subpath " + sbplString(q) + ")")
	}
	b.WriteString(")\n")
	if p.Network == NetworkOff {
		b.WriteString("(deny network*)\n(allow network* (remote unix-socket))\n(allow network* (local unix-socket))\n")
	}
	b.WriteString("(deny signal)\n(allow signal (target same-sandbox))\n(deny process-info* (target others))\n")
	return b.String()
}

// sbplString quotes s as an SBPL string.
func sbplString(s string) string { return strconv.Quote(s) }

// SeatbeltArgv is argv run under sandbox-exec with p's profile.
func SeatbeltArgv(p *Policy, argv []string) (string, []string) {
	return seatbeltExec, append([]string{"sandbox-exec", "-p", SeatbeltProfile(p), "--"}, argv...)
}
