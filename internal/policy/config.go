package policy

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Variable names, as 0.4.0 spells them, plus our extensions.
const (
	envDefaultCwd       = "YIELDSHELL_DEFAULT_CWD"
	envAllowedCwds      = "YIELDSHELL_ALLOWED_CWDS"
	envMaxOutputBytes   = "YIELDSHELL_MAX_OUTPUT_BYTES"
	envMaxProcesses     = "YIELDSHELL_MAX_PROCESSES"
	envDefaultYieldMs   = "YIELDSHELL_DEFAULT_YIELD_MS"
	envMaxYieldMs       = "YIELDSHELL_MAX_YIELD_MS"
	envDefaultTimeoutMs = "YIELDSHELL_DEFAULT_TIMEOUT_MS"
	envDenyCommand      = "YIELDSHELL_DENY_COMMAND_REGEX"
	envAllowCommand     = "YIELDSHELL_ALLOW_COMMAND_REGEX"
	envRedactEnv        = "YIELDSHELL_REDACT_ENV_REGEX"
	envBlocked          = "MCP_YIELDSHELL_BLOCKED_SIDE_EFFECTS"
	envMaxBufferBytes   = "YIELDSHELL_MAX_BUFFER_BYTES" // extension
	envMaxScreenCells   = "YIELDSHELL_MAX_SCREEN_CELLS" // extension
	envTTY              = "YIELDSHELL_TTY"              // extension
	envLogDir           = "YIELDSHELL_LOG_DIR"          // extension
	envLogMaxBytes      = "YIELDSHELL_LOG_MAX_BYTES"    // extension
	envPurgeAfterMs     = "YIELDSHELL_PURGE_AFTER_MS"   // extension
	envTimeoutGraceMs   = "YIELDSHELL_TIMEOUT_GRACE_MS" // extension
	envToolset          = "YIELDSHELL_TOOLSET"          // extension
	envMaxLogLines      = "MCP_MAX_LOG_LINES"           // mcp-shell-yeah's
	envAsk              = "YIELDSHELL_ASK"              // extension
	envResourceLinks    = "YIELDSHELL_RESOURCE_LINKS"   // extension
)

// Defaults. The numeric ones match 0.4.0.
const (
	defaultMaxOutputBytes   = 20000
	defaultMaxBufferBytes   = 256 << 10
	defaultMaxProcesses     = 50
	defaultDefaultYieldMs   = 5000
	defaultMaxYieldMs       = 300000
	defaultDefaultTimeoutMs = 0
	defaultRedactEnv        = `TOKEN|KEY|SECRET|PASSWORD`
	defaultTTY              = true
	defaultLogMaxBytes      = 10 << 20
	defaultPurgeAfterMs     = 3600000
	defaultTimeoutGraceMs   = 2000
	defaultMaxLogLines      = 1000 // mcp-shell-yeah's
)

// Toolsets: which tool names the server exposes.
const (
	ToolsetDefault   = "default"    // the seven tools of mcp-yieldshell plus restart and ask_human
	ToolsetShellYeah = "shell-yeah" // the eleven tools of mcp-shell-yeah
	ToolsetAll       = "all"        // both
)

// defaultMaxScreenCells is 400x250 (or 1000x100): a rendered screen costs
// about 32 bytes a cell, so 3.2 MB, and 50 of them 160 MB.
const defaultMaxScreenCells = 100_000

// Vars lists every variable Load reads, in documentation order: the spec's
// variables in the spec's order, then yieldshell's extensions. It feeds
// --help and the README table, so the two cannot drift from Load.
func Vars() []Var {
	return []Var{
		{envDefaultCwd, "the client's first root, else the server's working directory",
			"Working directory for commands that give no cwd, and the base for relative cwd values; must be an existing directory. When set, the client's roots never change it."},
		{envAllowedCwds, "(none: any directory)",
			"Roots separated by " + listSeparatorName() + "; when set, every command's cwd must resolve (symlinks included) inside one of them. Each root must exist; a value naming none is refused. The word " + RootsKeyword + " instead confines commands to the roots the client declares (MCP roots); a client that declares none gets every command refused."},
		{envMaxOutputBytes, strconv.Itoa(defaultMaxOutputBytes),
			"Default and maximum number of output bytes returned by one exec, read or wait response."},
		{envMaxProcesses, strconv.Itoa(defaultMaxProcesses),
			"Maximum number of running processes; finished ones do not count. At least 1."},
		{envDefaultYieldMs, strconv.Itoa(defaultDefaultYieldMs),
			"How long exec waits before backgrounding a command when yield_ms is omitted."},
		{envMaxYieldMs, strconv.Itoa(defaultMaxYieldMs),
			"Upper bound for an explicit yield_ms."},
		{envDefaultTimeoutMs, strconv.Itoa(defaultDefaultTimeoutMs),
			"Runtime limit applied when timeout_ms is omitted; 0 means no limit."},
		{envDenyCommand, "(none)",
			"Go RE2 regular expression; a command it matches anywhere is refused before it starts. A signal, not a sandbox."},
		{envAllowCommand, "(none)",
			"Go RE2 regular expression; when set, only commands it matches anywhere may start."},
		{envRedactEnv, defaultRedactEnv,
			"Go RE2 regular expression over variable names; values (8 bytes or longer) of matching variables are replaced in output by [REDACTED:NAME]."},
		{envBlocked, joinEffects(DefaultBlocked()),
			`Comma-separated side-effect categories that exec refuses (case-sensitive); "," blocks nothing.`},
		{envMaxBufferBytes, strconv.Itoa(defaultMaxBufferBytes),
			"yieldshell extension: output bytes retained per process for later reads; at least " + envMaxOutputBytes + " (raised to it when unset)."},
		{envMaxScreenCells, strconv.Itoa(defaultMaxScreenCells),
			"yieldshell extension: largest terminal, in cells (cols x rows; each from 2 to 1000), that exec and write's resize accept; larger is refused. A rendered screen costs about 32 bytes a cell. At least 4."},
		{envTTY, strconv.FormatBool(defaultTTY),
			"yieldshell extension: run commands under a pseudo-terminal unless exec says otherwise (1/true/yes/on or 0/false/no/off)."},
		{envLogDir, "(none: no log files)",
			"yieldshell extension: directory (created 0700) where every process's clean, redacted output is also appended to a file (0600), kept after the process is forgotten; answers then carry log_path and tail_command."},
		{envLogMaxBytes, strconv.Itoa(defaultLogMaxBytes),
			"yieldshell extension: size at which a log file is rotated (the previous one is kept as <file>.1). At least 4096."},
		{envTimeoutGraceMs, strconv.Itoa(defaultTimeoutGraceMs),
			"yieldshell extension: how long a command whose timeout_ms passed gets between SIGTERM and SIGKILL (to its whole process tree). At least 1."},
		{envPurgeAfterMs, strconv.Itoa(defaultPurgeAfterMs),
			"yieldshell extension: records of finished processes are forgotten this long after they ended, as cleanup would; 0 keeps them until cleanup."},
		{envToolset, ToolsetDefault,
			"yieldshell extension: tools to expose: default (exec, read, write, wait, stop, ps, cleanup, restart, ask_human), shell-yeah (the mcp-shell-yeah tools: start_shell, check_shell, ...) or all."},
		{envAsk, "false",
			"yieldshell extension: with a client that declared form elicitation, a command refused for a blocked side-effect category, a cwd outside " + envAllowedCwds + " or " + envDenyCommand + " asks the user once (allow once / deny) instead of failing; never for " + envAllowCommand + ", the process limit or a malformed call."},
		{envResourceLinks, "false",
			"yieldshell extension: exec, read and ps answers also carry a resource_link to each process's log (yieldshell://process/ID/log) for every client; by default only for a client that has read or subscribed to a resource in that session (other clients show links as text, or drop them)."},
		{envShell, "bash if installed, else /bin/sh (cmd.exe on Windows)",
			"yieldshell extension: program that runs a command with -c when exec names no shell: an absolute path or a name on PATH. bash runs it as its terminal would (a lone command gets bash's own process; a Ctrl-C reports the program's exit code), with --norc --noprofile."},
		{envSandbox, SandboxOff,
			"yieldshell extension: confine every command with the kernel (Linux: Landlock and seccomp; docs/sandbox.md): off; workspace-write (writes only in the allowed roots, " + envAllowedCwds + " else the client's roots else the server's cwd, its own TMPDIR, the terminal and " + envSandboxWritable + "); read-only (writes only its TMPDIR and the terminal); best-effort (workspace-write with whatever the kernel offers, the gaps reported on every answer). The server refuses to start in a mode the kernel cannot enforce. Recommended: workspace-write."},
		{envSandboxWritable, "(none)",
			"yieldshell extension: more paths a sandboxed command may write, separated by " + listSeparatorName() + "."},
		{envSandboxNetwork, NetworkOff,
			"yieldshell extension: network of a sandboxed command: off (only Unix sockets), on, or a comma-separated host list (example.com, *.example.com, example.com:443) reached through yieldshell's proxy."},
		{envHosts, "(none: any host)",
			"yieldshell extension: the hosts exec's host may name (ssh destinations, separated by commas or blanks); a command for another host is refused."},
		{envSSH, "ssh",
			"yieldshell extension: the ssh command, with options, that reaches exec's host (e.g. \"ssh -F /path/config\"); the user's ssh config, agent, keys and known hosts apply."},
		{envMaxLogLines, strconv.Itoa(defaultMaxLogLines),
			"mcp-shell-yeah's: the mcp-shell-yeah tools show at most this many of a shell's newest retained lines (" + envMaxBufferBytes + " still bounds what is retained). At least 1."},
	}
}

func listSeparatorName() string {
	if os.PathListSeparator == ';' {
		return `";"`
	}
	return `":"`
}

func joinEffects(es []SideEffect) string {
	s := make([]string, len(es))
	for i, e := range es {
		s[i] = string(e)
	}
	return strings.Join(s, ",")
}

// Load reads the configuration from getenv; cwd is the server's working
// directory ("" means os.Getwd), the default for YIELDSHELL_DEFAULT_CWD and
// the base for relative paths in the environment.
//
// Every variable is read exactly once, and a blank value means the default.
// Unlike 0.4.0, which silently fell back to defaults or crashed on a bad
// regex, Load checks every value and reports all problems in one error, each
// naming the variable, the bad value and what would be valid, so an operator
// can fix the configuration in one round.
func Load(getenv func(string) string, cwd string) (*Config, error) {
	if cwd == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, fmt.Errorf("loading configuration: getting working directory: %w", err)
		}
		cwd = wd
	}
	l := &loader{getenv: getenv, base: cwd}
	c := &Config{
		Limits: Limits{
			OutputBytes: l.int(envMaxOutputBytes, defaultMaxOutputBytes, 1),
			Processes:   l.int(envMaxProcesses, defaultMaxProcesses, 1),
		},
		Times: Times{
			MaxYield:       l.millis(envMaxYieldMs, defaultMaxYieldMs, 0),
			DefaultTimeout: l.millis(envDefaultTimeoutMs, defaultDefaultTimeoutMs, 0),
			TimeoutGrace:   l.millis(envTimeoutGraceMs, defaultTimeoutGraceMs, 1),
		},
		Rules: Rules{
			DenyCommand:  l.regexp(envDenyCommand, ""),
			AllowCommand: l.regexp(envAllowCommand, ""),
			RedactEnv:    l.regexp(envRedactEnv, defaultRedactEnv),
			Blocked:      l.blocked(),
		},
		TTY: l.bool(envTTY, defaultTTY),
		Log: LogFiles{MaxBytes: int64(l.int(envLogMaxBytes, defaultLogMaxBytes, 4096))},
	}
	c.Times.PurgeAfter = l.millis(envPurgeAfterMs, defaultPurgeAfterMs, 0)
	c.Toolset = l.toolset()
	c.Limits.LogLines = l.int(envMaxLogLines, defaultMaxLogLines, 1)
	c.Limits.ScreenCells = l.int(envMaxScreenCells, defaultMaxScreenCells, 4)
	c.Rules.Ask = l.bool(envAsk, false)
	c.ResourceLinks = l.bool(envResourceLinks, false)
	c.Sandbox = l.sandbox()
	c.Shell = l.shell()
	c.Remote = Remote{
		Hosts: strings.FieldsFunc(getenv(envHosts), func(r rune) bool { return r == ',' || r == ' ' }),
		SSH:   strings.Fields(getenv(envSSH)),
	}
	c.Log.Dir = l.logDir()
	c.Cwd.Default, c.Cwd.ExplicitDefault = l.defaultCwd()
	c.Cwd.Allowed, c.Cwd.FromRoots = l.allowedCwds()
	c.Limits.BufferBytes = l.maxBuffer(c.Limits.OutputBytes)
	c.Times.DefaultYield = l.defaultYield(c.Times.MaxYield)
	if err := l.err(); err != nil {
		return nil, err
	}
	return c, nil
}

// LoadRedaction reads only YIELDSHELL_REDACT_ENV_REGEX: a Config whose
// Secrets are those Load's would find, for a bridge to a persistent server
// that loads nothing else.
func LoadRedaction(getenv func(string) string) (*Config, error) {
	l := &loader{getenv: getenv}
	c := &Config{Rules: Rules{RedactEnv: l.regexp(envRedactEnv, defaultRedactEnv)}}
	if err := l.err(); err != nil {
		return nil, err
	}
	return c, nil
}

// Warnings returns advice about a configuration that loads but is probably
// not what the operator meant, for the caller to log. Today: a default cwd
// outside the allowed roots, which makes every exec without cwd fail. That is
// not an error because 0.4.0 configurations that always pass cwd are valid.
func (c *Config) Warnings() []string {
	var w []string
	if len(c.Cwd.Allowed) > 0 && !within(c.Cwd.Default, c.Cwd.Allowed) {
		unless := ""
		if !c.Cwd.ExplicitDefault {
			unless = " unless the client names a root inside them"
		}
		w = append(w, fmt.Sprintf("%s %q is outside %s; exec calls without cwd will be refused%s",
			envDefaultCwd, c.Cwd.Default, envAllowedCwds, unless))
	}
	return w
}

// loader reads variables and collects every problem instead of stopping at
// the first.
type loader struct {
	getenv func(string) string
	seen   map[string]string
	base   string
	errs   []error
}

// raw returns the value of name, calling getenv only the first time, so
// every variable is read once even when several rules consult it.
func (l *loader) raw(name string) string {
	if v, ok := l.seen[name]; ok {
		return v
	}
	if l.seen == nil {
		l.seen = map[string]string{}
	}
	v := l.getenv(name)
	l.seen[name] = v
	return v
}

// value returns the trimmed value of name and whether it is set to something
// other than blanks.
func (l *loader) value(name string) (string, bool) {
	v := strings.TrimSpace(l.raw(name))
	return v, v != ""
}

func (l *loader) fail(name, value, format string, args ...any) {
	l.errs = append(l.errs, fmt.Errorf("%s=%q: %s", name, value, fmt.Sprintf(format, args...)))
}

func (l *loader) err() error {
	switch len(l.errs) {
	case 0:
		return nil
	case 1:
		return fmt.Errorf("loading configuration: %w", l.errs[0])
	}
	return &loadError{l.errs}
}

// loadError lists several configuration problems, one per line.
type loadError struct{ errs []error }

func (e *loadError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "loading configuration: %d problems:", len(e.errs))
	for _, err := range e.errs {
		b.WriteString("\n\t")
		b.WriteString(err.Error())
	}
	return b.String()
}

func (e *loadError) Unwrap() []error { return e.errs }

func (l *loader) int(name string, def, min int) int {
	v, ok := l.value(name)
	if !ok {
		return def
	}
	n, err := parseInt(v)
	switch {
	case err != nil:
		l.fail(name, v, "%v; want a whole number of at least %d (default %d)", err, min, def)
		return def
	case n < min:
		l.fail(name, v, "must be at least %d (default %d)", min, def)
		return def
	}
	return n
}

// MaxMillis is the longest time a time.Duration holds, in milliseconds
// (about 292 years): the most a variable that counts milliseconds takes.
const MaxMillis = math.MaxInt64 / int64(time.Millisecond)

// millis is int for a variable that counts milliseconds, up to MaxMillis:
// more would wrap around to a negative duration.
func (l *loader) millis(name string, def, min int) time.Duration {
	n := l.int(name, def, min)
	if int64(n) > MaxMillis {
		v, _ := l.value(name)
		l.fail(name, v, "out of range; want at most %d (default %d)", MaxMillis, def)
		n = def
	}
	return time.Duration(n) * time.Millisecond
}

// parseInt accepts a decimal integer with an optional sign and, as Python's
// int() did for 0.4.0, "_" between digits.
func parseInt(s string) (int, error) {
	digits := strings.TrimLeft(s, "+-")
	if strings.Contains(digits, "_") {
		if strings.HasPrefix(digits, "_") || strings.HasSuffix(digits, "_") || strings.Contains(digits, "__") {
			return 0, errors.New("not a whole number")
		}
		s = strings.ReplaceAll(s, "_", "")
	}
	n, err := strconv.Atoi(s)
	if errors.Is(err, strconv.ErrRange) {
		return 0, errors.New("out of range")
	}
	if err != nil {
		return 0, errors.New("not a whole number")
	}
	return n, nil
}

// maxBuffer reads YIELDSHELL_MAX_BUFFER_BYTES. Retaining less than one
// response may return makes no sense: when the variable is unset, the default
// is raised to maxOutput; when the operator set both and they conflict, that
// is an error rather than a silent change of what they asked for.
func (l *loader) maxBuffer(maxOutput int) int {
	v, set := l.value(envMaxBufferBytes)
	before := len(l.errs)
	n := l.int(envMaxBufferBytes, defaultMaxBufferBytes, 1)
	if !set {
		return max(n, maxOutput)
	}
	if len(l.errs) == before && n < maxOutput {
		l.fail(envMaxBufferBytes, v, "is less than %s (%d); the buffer must hold at least one full response",
			envMaxOutputBytes, maxOutput)
	}
	return n
}

// defaultYield reads YIELDSHELL_DEFAULT_YIELD_MS, keeping it within
// YIELDSHELL_MAX_YIELD_MS: unset, the default is lowered to the maximum (so a
// 0.4.0 setup that only lowers MAX_YIELD_MS still starts); set above the
// maximum, it is an error.
func (l *loader) defaultYield(maxYield time.Duration) time.Duration {
	v, set := l.value(envDefaultYieldMs)
	before := len(l.errs)
	d := l.millis(envDefaultYieldMs, defaultDefaultYieldMs, 0)
	if !set {
		return min(d, maxYield)
	}
	if len(l.errs) == before && d > maxYield {
		l.fail(envDefaultYieldMs, v, "exceeds %s (%d)", envMaxYieldMs, maxYield.Milliseconds())
	}
	return d
}

func (l *loader) bool(name string, def bool) bool {
	v, ok := l.value(name)
	if !ok {
		return def
	}
	switch strings.ToLower(v) {
	case "1", "true", "yes", "on":
		return true
	case "0", "false", "no", "off":
		return false
	}
	l.fail(name, v, "want 1, true, yes or on, or 0, false, no or off (default %t)", def)
	return def
}

func (l *loader) regexp(name, def string) *regexp.Regexp {
	v, ok := l.value(name)
	if !ok {
		v = def
	}
	if v == "" {
		return nil
	}
	// The raw value, not the trimmed one: spaces may be part of a pattern.
	if ok {
		v = l.raw(name)
	}
	re, err := regexp.Compile(v)
	if err != nil {
		l.fail(name, v, "%s", regexpProblem(err))
		return nil
	}
	return re
}

// regexpProblem explains a compile error for operators who wrote a Python
// (0.4.0) or PCRE pattern: Go's RE2 rejects constructs that need
// backtracking, and naming the construct saves a trip to the manual.
func regexpProblem(err error) string {
	var se *syntax.Error
	if !errors.As(err, &se) {
		return "not a valid Go RE2 regular expression: " + err.Error()
	}
	msg := fmt.Sprintf("not a valid Go RE2 regular expression: %s at `%s`", se.Code, se.Expr)
	if hint := unsupportedConstruct(se); hint != "" {
		msg += "; RE2 does not support " + hint + " (it guarantees linear-time matching, so no backtracking constructs)"
	}
	return msg
}

// RegexProblem is regexpProblem for a pattern an agent sent: what is
// wrong, never the pattern's text (an answer does not echo the agent's
// values).
func RegexProblem(err error) string {
	se, ok := errors.AsType[*syntax.Error](err)
	if !ok {
		return "not a valid Go RE2 regular expression"
	}
	msg := "not a valid Go RE2 regular expression: " + string(se.Code)
	if hint, _, _ := strings.Cut(unsupportedConstruct(se), " like "); hint != "" {
		msg += "; RE2 does not support " + hint
	}
	return msg
}

func unsupportedConstruct(se *syntax.Error) string {
	x := se.Expr
	switch {
	case strings.HasPrefix(x, "(?="):
		return "look-ahead (?=...)"
	case strings.HasPrefix(x, "(?!"):
		return "negative look-ahead (?!...)"
	case strings.HasPrefix(x, "(?<="):
		return "look-behind (?<=...)"
	case strings.HasPrefix(x, "(?<!"):
		return "negative look-behind (?<!...)"
	case strings.HasPrefix(x, "(?>"):
		return "atomic groups (?>...)"
	case strings.HasPrefix(x, "(?P") && strings.Contains(se.Error(), "(?P="):
		return "named back-references (?P=name)"
	case len(x) == 2 && x[0] == '\\' && x[1] >= '1' && x[1] <= '9':
		return "back-references like " + x
	case strings.HasPrefix(x, `\k`):
		return `named back-references \k<name>`
	case se.Code == syntax.ErrInvalidRepeatOp && len(x) == 2 && x[1] == '+':
		return "possessive quantifiers like " + x
	}
	return ""
}

// blocked parses MCP_YIELDSHELL_BLOCKED_SIDE_EFFECTS by the spec's rules:
// blank means the defaults; otherwise the listed names replace them (a list
// with no names, such as ",", blocks nothing).
func (l *loader) blocked() []SideEffect {
	v, ok := l.value(envBlocked)
	if !ok {
		return DefaultBlocked()
	}
	out := []SideEffect{}
	var bad []string
	for _, part := range strings.Split(v, ",") {
		name := strings.TrimSpace(part)
		switch e := SideEffect(name); {
		case name == "":
		case e.Valid():
			if !slices.Contains(out, e) {
				out = append(out, e)
			}
		default:
			if c, ok := canonicalFold(name); ok {
				bad = append(bad, fmt.Sprintf("%q (did you mean %q?)", name, c))
			} else {
				bad = append(bad, fmt.Sprintf("%q", name))
			}
		}
	}
	if len(bad) > 0 {
		l.fail(envBlocked, v, "unknown side-effect names %s. Valid values (case-sensitive): %s; "+
			`set it to "," to block nothing`, strings.Join(bad, ", "), strings.Join(SideEffectNames(), ", "))
	}
	slices.Sort(out)
	return out
}

// defaultCwd reads YIELDSHELL_DEFAULT_CWD, and whether the operator set it.
func (l *loader) defaultCwd() (string, bool) {
	v, ok := l.value(envDefaultCwd)
	if !ok {
		v = l.base
	}
	dir, err := l.dir(v)
	if err != nil {
		l.fail(envDefaultCwd, v, "%v", err)
	}
	return dir, ok
}

// allowedCwds reads YIELDSHELL_ALLOWED_CWDS: the roots it lists, or
// fromRoots for the keyword that defers to the client's roots.
func (l *loader) allowedCwds() (roots []string, fromRoots bool) {
	v, ok := l.value(envAllowedCwds)
	if !ok {
		return nil, false
	}
	parts := filepath.SplitList(v)
	for _, part := range parts {
		if strings.TrimSpace(part) != RootsKeyword {
			continue
		}
		// "roots" alone: mixed with paths, it would be unclear whether
		// the paths add to the client's roots or replace them.
		for _, other := range parts {
			if o := strings.TrimSpace(other); o != "" && o != RootsKeyword {
				l.fail(envAllowedCwds, v, "%q must stand alone (it confines commands to the client's roots); "+
					"list directories instead to choose the roots yourself", RootsKeyword)
				return nil, false
			}
		}
		return nil, true
	}
	return l.allowedPaths(v), false
}

func (l *loader) allowedPaths(v string) []string {
	errsBefore := len(l.errs)
	var roots []string
	for _, part := range filepath.SplitList(v) {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		dir, err := l.dir(part)
		if err != nil {
			l.fail(envAllowedCwds, v, "root %q: %v; every root must be an existing directory", part, err)
			continue
		}
		if !slices.Contains(roots, dir) {
			roots = append(roots, dir)
		}
	}
	// A value of separators only names no root: refused, rather than read as
	// "any directory" (fail closed).
	if len(roots) == 0 && len(l.errs) == errsBefore {
		l.fail(envAllowedCwds, v, "names no directory; list the allowed roots, or leave it unset to allow any directory")
	}
	return roots
}

// dir makes p absolute against the server's cwd, resolves symlinks and checks
// that it is a directory.
func (l *loader) dir(p string) (string, error) {
	if !filepath.IsAbs(p) {
		p = filepath.Join(l.base, p)
	}
	resolved, err := filepath.EvalSymlinks(p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", errors.New("directory does not exist")
		}
		return "", fmt.Errorf("resolving path: %w", err)
	}
	fi, err := os.Stat(resolved)
	if err != nil {
		return "", fmt.Errorf("checking path: %w", err)
	}
	if !fi.IsDir() {
		return "", errors.New("is not a directory")
	}
	return resolved, nil
}

func (l *loader) toolset() string {
	v, ok := l.value(envToolset)
	if !ok {
		return ToolsetDefault
	}
	switch t := strings.ToLower(v); t {
	case ToolsetDefault, ToolsetShellYeah, ToolsetAll:
		return t
	}
	l.fail(envToolset, v, "want %s, %s or %s (default %s)", ToolsetDefault, ToolsetShellYeah, ToolsetAll, ToolsetDefault)
	return ToolsetDefault
}

// logDir reads YIELDSHELL_LOG_DIR: made absolute against the server's cwd.
// The directory is created (0700) when the first log is written, so a
// missing directory is not an error here.
func (l *loader) logDir() string {
	v, ok := l.value(envLogDir)
	if !ok {
		return ""
	}
	if !filepath.IsAbs(v) {
		v = filepath.Join(l.base, v)
	}
	if fi, err := os.Stat(v); err == nil && !fi.IsDir() {
		l.fail(envLogDir, v, "is not a directory")
		return ""
	}
	return filepath.Clean(v)
}
