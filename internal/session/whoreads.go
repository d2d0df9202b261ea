package session

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/yieldshell/yieldshell/internal/proc"
)

// Reader is the process reading a terminal, as the kernel shows it: who
// gets what a person types there. A secret page shows it, since the
// command the agent started (a shell, say) is not necessarily what asks:
// a shell function named sudo can print sudo's prompt (issue 38).
type Reader struct {
	Pid     int
	Command string // its argument vector, as /proc shows it
	Exe     string // the program it runs
	// Warning says why a person should doubt it: it is a shell or an
	// interpreter (whose prompt a function or script of the agent's may
	// print), a program not installed on the system (one the agent may
	// have written), or could not be identified. "" for an installed
	// program.
	Warning string
}

// shellNames are programs whose prompts their scripts and functions
// write: a shell reading with echo off is `read -s`, whatever it prints.
var shellNames = map[string]bool{"sh": true, "bash": true, "dash": true, "zsh": true, "fish": true,
	"ksh": true, "mksh": true, "yash": true, "tcsh": true, "csh": true, "busybox": true}

// interpreter matches programs that run a script they are given.
var interpreter = regexp.MustCompile(`^(python[0-9.]*|pypy[0-9.]*|node|nodejs|deno|bun|perl[0-9.]*|ruby[0-9.]*|php[0-9.]*|lua[0-9.]*|luajit|tclsh[0-9.]*|wish[0-9.]*|expect|osascript|pwsh|powershell|java|Rscript|julia|awk|gawk|mawk)$`)

// TerminalReader returns the process that, as the kernel last showed,
// is blocked reading p's terminal; ok is false when none was seen (the
// program polls, or the kernel could not be asked).
func (p *Process) TerminalReader() (r Reader, ok bool) {
	t := p.in.detector.Reader()
	if t.Pid == 0 {
		return Reader{Warning: "the process reading the terminal could not be identified: the server cannot say who receives what you type"}, false
	}
	return describeReader(t.Pid), true
}

// describeReader reads what the kernel says of pid and judges it.
func describeReader(pid int) Reader {
	r := Reader{Pid: pid}
	argv, err := proc.ReadCmdline(pid)
	exe, exeErr := proc.ReadExe(pid)
	if err != nil || exeErr != nil || len(argv) == 0 {
		r.Warning = "the process reading the terminal could not be looked at: the server cannot say who receives what you type"
		return r
	}
	r.Command, r.Exe = strings.Join(argv, " "), exe
	base := filepath.Base(exe)
	switch {
	case shellNames[base]:
		r.Warning = fmt.Sprintf("the process reading the terminal is a shell (%s), not a program such as sudo or ssh: "+
			"the prompt was printed by a shell function or script, which the agent may have written, and the shell can do anything with what you type", base)
	case interpreter.MatchString(base):
		r.Warning = fmt.Sprintf("the process reading the terminal is a script run by %s, not a program such as sudo or ssh: "+
			"the agent may have written the script, and it can do anything with what you type", base)
	case !installed(exe):
		r.Warning = fmt.Sprintf("the process reading the terminal runs %s, which is not a program installed on this system (it is not owned by root, or others may change it): "+
			"the agent may have written it, and it can do anything with what you type", exe)
	}
	return r
}
