package policy

import "regexp"

// SideEffect is one of the 21 categories a command declares.
type SideEffect string

// Config is the server configuration, read once at start-up.
type Config struct {
	DefaultCwd       string   // absolute, symlinks resolved
	AllowedCwds      []string // absolute, symlinks resolved; empty = any
	MaxOutputBytes   int      // per-response output cap (20000)
	MaxBufferBytes   int      // output retained per process (1 MiB)
	MaxProcesses     int      // running processes (50)
	DefaultYieldMs   int      // 5000
	MaxYieldMs       int      // 300000
	DefaultTimeoutMs int      // 0 = none
	DenyCommand      *regexp.Regexp
	AllowCommand     *regexp.Regexp
	RedactEnv        *regexp.Regexp
	Blocked          []SideEffect // sorted
	TTY              bool         // default for exec's tty (true)
}

// Var documents one configuration variable.
type Var struct{ Name, Default, Help string }

// Vars lists every variable Load reads, in documentation order.
func Vars() []Var { panic("unimplemented") }

// Load reads the configuration from getenv; cwd is the server's working
// directory.
func Load(getenv func(string) string, cwd string) (*Config, error) { panic("unimplemented") }

// Refusal is a policy decision not to start a command.
type Refusal struct {
	Rule    string // "side_effects", "deny_command_regex", "allow_command_regex", "cwd", "max_processes"
	Message string
}

func (r *Refusal) Error() string { return r.Message }

// CheckSideEffects validates a declaration and refuses blocked categories.
func (c *Config) CheckSideEffects(declared []string) error { panic("unimplemented") }

// CheckCommand applies the deny and allow regexes.
func (c *Config) CheckCommand(command string) error { panic("unimplemented") }

// ResolveCwd resolves cwd (relative to DefaultCwd; "" means DefaultCwd) to an
// existing directory inside the allowed roots.
func (c *Config) ResolveCwd(cwd string) (string, error) { panic("unimplemented") }

// Secrets returns the values to redact: those of env entries ("KEY=value")
// whose names match RedactEnv.
func (c *Config) Secrets(env ...[]string) []Secret { panic("unimplemented") }

// Secret is one value to redact and the variable it came from.
type Secret struct{ Name, Value string }

// Redactor replaces secrets in a byte stream, holding back a tail that could
// be the start of a secret split across writes.
type Redactor struct{}

// NewRedactor returns a redactor for secrets; nil or empty means a pass-through.
func NewRedactor(secrets []Secret) *Redactor { panic("unimplemented") }

// Write appends the redacted bytes of p that are safe to emit to dst.
func (r *Redactor) Write(dst, p []byte) []byte { panic("unimplemented") }

// Flush appends everything held back to dst.
func (r *Redactor) Flush(dst []byte) []byte { panic("unimplemented") }
