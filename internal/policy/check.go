package policy

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"unicode/utf8"
)

// commandEcho is how many runes of a refused command a message repeats:
// enough for the agent to recognise which call failed, without echoing a
// long command (or a secret inside it) back into the transcript.
const commandEcho = 40

// CheckCommand applies the deny and allow regexes, deny first. Both search
// anywhere in the command (MatchString), as 0.4.0's re.search did. They are a
// signal, not a control: quoting or variables get around any pattern. A
// refusal quotes the command with secrets redacted.
func (c *Config) CheckCommand(command string, secrets ...Secret) error {
	if c.Rules.DenyCommand != nil && c.Rules.DenyCommand.MatchString(command) {
		return askable("deny_command_regex", fmt.Sprintf(
			"command denied by policy (deny_command_regex): %s matches the operator's %s. Nothing was started. "+
				"Use a different command that does not match the operator's deny pattern, "+
				"or ask the operator to change %s.",
			echo(Redact(secrets, command)), envDenyCommand, envDenyCommand))
	}
	if c.Rules.AllowCommand != nil && !c.Rules.AllowCommand.MatchString(command) {
		return refuse("allow_command_regex", fmt.Sprintf(
			"command not allowed by policy (allow_command_regex): %s does not match %s, which lists the only "+
				"commands the operator permits. Nothing was started. Use a command of the permitted form, "+
				"or ask the operator to change %s.",
			echo(Redact(secrets, command)), envAllowCommand, envAllowCommand))
	}
	return nil
}

// echo quotes a short prefix of command for a message.
func echo(command string) string {
	if utf8.RuneCountInString(command) <= commandEcho {
		return fmt.Sprintf("the command %q", command)
	}
	n := 0
	for i := range command {
		if n == commandEcho {
			return fmt.Sprintf("the command starting %q", command[:i])
		}
		n++
	}
	return fmt.Sprintf("the command %q", command)
}

// CheckProcessLimit refuses a new command when running processes already
// reach Limits.Processes. The caller counts (and reserves the slot under its own
// lock); policy only owns the rule and the words.
func (c *Config) CheckProcessLimit(running int) error {
	if running < c.Limits.Processes {
		return nil
	}
	return refuse("max_processes", fmt.Sprintf(
		"process limit reached: %d of %d processes are running (YIELDSHELL_MAX_PROCESSES). Nothing was started. "+
			"Wait for one to finish, stop one you no longer need (see ps), then try again.",
		running, c.Limits.Processes))
}

// CheckScreen refuses a terminal of more than MaxScreenCells cells: each
// cell of a rendered screen costs memory (issue 30 item 5: 1000x500 was
// 16 MB a screen).
func (c *Config) CheckScreen(cols, rows int) error {
	if c.Limits.ScreenCells <= 0 || cols*rows <= c.Limits.ScreenCells {
		return nil
	}
	return refuse("max_screen_cells", fmt.Sprintf(
		"a %dx%d terminal has %d cells, more than the %d this server allows (YIELDSHELL_MAX_SCREEN_CELLS). "+
			"Nothing was changed. Ask for a smaller one (e.g. cols 200, rows 50; the default is 120x40).",
		cols, rows, cols*rows, c.Limits.ScreenCells))
}

// ResolveCwd resolves cwd (relative to Cwd.Default; "" means Cwd.Default) to an
// existing directory inside the allowed roots, and returns it with symlinks
// resolved; the caller should start the command in the returned path, not in
// cwd, so a symlink swapped after the check cannot redirect it elsewhere.
// A directory of the returned path swapped for a link later still could;
// the engine closes that on Linux by opening the path following no link
// (pty's pinDir; docs/policy.md says what remains elsewhere).
//
// Containment is decided on the resolved path, component by component, so
// "/tmp" does not admit "/tmpfoo" and a symlink inside a root that points
// outside it is refused — both were admitted by 0.4.0's string-prefix test.
func (c *Config) ResolveCwd(cwd string) (string, error) {
	if err := c.checkRoots(); err != nil {
		return "", err
	}
	p := cwd
	if p == "" {
		p = c.Cwd.Default
	} else if !filepath.IsAbs(p) {
		p = filepath.Join(c.Cwd.Default, p)
	}
	p = filepath.Clean(p)

	resolved, err := filepath.EvalSymlinks(p)
	if err != nil {
		// Say "outside the roots" before "missing", so refusals do not reveal
		// which paths exist outside them.
		if len(c.Cwd.Allowed) > 0 && !within(p, c.Cwd.Allowed) {
			return "", c.outsideRoots(cwd, p)
		}
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			return "", refuse("cwd", fmt.Sprintf("cwd %s does not exist. Nothing was started. "+
				"Pass an existing directory (create it first if it should exist), or omit cwd to use %s.",
				describe(cwd, p), c.Cwd.Default))
		}
		return "", refuse("cwd", fmt.Sprintf("cwd %s cannot be resolved: %v. Nothing was started. "+
			"Pass a directory the server can read.", describe(cwd, p), unwrapPath(err)))
	}
	if len(c.Cwd.Allowed) > 0 && !within(resolved, c.Cwd.Allowed) {
		return "", c.outsideRoots(cwd, resolved)
	}
	fi, err := os.Stat(resolved)
	if err != nil {
		return "", refuse("cwd", fmt.Sprintf("cwd %s cannot be checked: %v. Nothing was started.",
			describe(cwd, resolved), unwrapPath(err)))
	}
	if !fi.IsDir() {
		return "", refuse("cwd", fmt.Sprintf("cwd %s is not a directory. Nothing was started. "+
			"Pass the directory that contains it, or omit cwd to use %s.", describe(cwd, resolved), c.Cwd.Default))
	}
	return resolved, nil
}

func (c *Config) outsideRoots(cwd, resolved string) error {
	whose := "allowed roots (YIELDSHELL_ALLOWED_CWDS)"
	if c.Cwd.FromRoots {
		whose = "the client's roots (YIELDSHELL_ALLOWED_CWDS=roots)"
	}
	return askable("cwd", fmt.Sprintf("cwd %s is not under %s. "+
		"Nothing was started. Use a directory inside one of: %s.",
		describe(cwd, resolved), whose, strings.Join(c.Cwd.Allowed, ", ")))
}

// describe names the path the agent passed and, when different, what it
// resolved to, so the agent sees how a relative path or symlink was read.
func describe(cwd, resolved string) string {
	if cwd == "" {
		return fmt.Sprintf("(default) %q", resolved)
	}
	if cwd == resolved {
		return fmt.Sprintf("%q", cwd)
	}
	return fmt.Sprintf("%q (resolved to %q)", cwd, resolved)
}

// unwrapPath drops the *fs.PathError wrapper, whose path the message already
// names.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// within reports whether path equals or lies below one of roots, comparing
// whole path components. Both sides must be absolute and clean.
func within(path string, roots []string) bool {
	for _, root := range roots {
		rel, err := filepath.Rel(root, path)
		if err != nil || filepath.IsAbs(rel) {
			continue
		}
		if rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue
		}
		return true
	}
	return false
}
