package prompt

import (
	"strings"
	"testing"
)

// rows are rows as the cursor leaves them (the text before it), from real
// programs, and whether each is a prompt.
var rows = []struct {
	line string
	kind Kind // "" means not a prompt
}{
	// Prompts.
	{">>> ", KindLine},
	{"... ", KindLine},
	{"> ", KindLine},
	{"$ ", KindLine},
	{"user@host:~/src$ ", KindLine},
	{"root@box:/# ", KindLine},
	{`C:\Users\me>`, KindLine},          // cmd.exe
	{`C:\Program Files\App>`, KindLine}, // cmd.exe
	{`PS C:\Users\me> `, KindLine},      // PowerShell
	{`PS Microsoft.PowerShell.Core\FileSystem::\\srv\share> `, KindLine},
	{"% ", KindLine},
	{"Enter your name: ", KindLine},
	{"What is your favorite color? ", KindLine},
	{"Continue? [y/N] ", KindLine},
	{"Overwrite? [Y/n]", KindLine},
	{"Are you sure you want to continue connecting (yes/no)? ", KindLine},
	{"Proceed (y/n)", KindLine},
	{"(gdb) ", KindLine},
	{"Make breakpoint pending on future shared library load? (y or [n]) ", KindLine},
	{"Quit anyway? (y or n) ", KindLine},
	{"Start it from the beginning? ([y] or n) ", KindLine},
	{"(Pdb) ", KindLine},
	{"ipdb> ", KindLine},
	{"In [3]: ", KindLine},
	{"postgres=# ", KindLine},
	{"mysql> ", KindLine},
	{"Enter a number between 1 and 10: ", KindLine},
	{"package name: (my-app) ", KindLine},
	{"Password: ", KindPassword},
	{"Password:", KindPassword},
	{"[sudo] password for alice: ", KindPassword},
	{"Enter passphrase for key '/home/a/.ssh/id_ed25519': ", KindPassword},
	{"Enter PIN: ", KindPassword},

	// Issue 32 cause 1, as real programs leave the row before the
	// cursor. A continuation prompt, then the REPL's auto-indent:
	{"...     ", KindLine},               // python 3.13
	{"...         ", KindLine},           // python 3.13, two levels
	{"   ...:     ", KindLine},           // IPython
	{"   ...:         ", KindLine},       // IPython, two levels
	{"irb(main):003:1*   ", KindLine},    // irb
	{"irb(main):003:2*     ", KindLine},  // irb, two levels
	{"[2] pry(main)*   ", KindLine},      // pry
	{"... \t", KindLine},                 // a tab for the indent
	{"   ...> ", KindLine},               // sqlite3
	{"postgres-# ", KindLine},            // psql
	{"postgres-> ", KindLine},            // psql, not a superuser
	{"    -> ", KindLine},                // mysql
	{"In [1]: ", KindLine},               // IPython
	{"irb(main):001:0> ", KindLine},      // irb
	{"sqlite> ", KindLine},               // sqlite3
	{"Is this OK? (yes) ", KindLine},     // npm init
	{"ada@box ~ % ", KindLine},           // zsh
	{"[10:15:22] ada@box:~$ ", KindLine}, // a shell showing the time
	{"Your selection? ", KindLine},       // gpg
	{"Key is valid for? (0) ", KindLine}, // gpg
	{"What keysize do you want? (3072) ", KindLine},
	{"Country Name (2 letter code) [AU]:", KindLine}, // openssl req
	{"Locality Name (eg, city) []:", KindLine},
	// A default in brackets, holding anything:
	{"package name: (my-dir) ", KindLine}, // npm init
	{"version: (1.0.0) ", KindLine},
	{"entry point: (index.js) ", KindLine},
	{"license: (ISC) ", KindLine},
	{"type: (commonjs) ", KindLine},
	{"test command: ", KindLine},
	{"git repository: ", KindLine},
	{"Enter file in which to save the key (/root/.ssh/id_ed25519): ", KindLine}, // ssh-keygen
	{"Name [default]: ", KindLine},
	{"Project version [0.1.0]: ", KindLine},
	{"Enter version [1.0.0] ", KindLine},
	{"Select a port (8080) ", KindLine},
	{"Installing 3 packages, continue? [Y/n] ", KindLine},
	{"Downloading 12 MB. Proceed (y/n)", KindLine},
	{"user=> ", KindLine},     // clojure
	{"postgres=> ", KindLine}, // psql, not a superuser
	{"(Pdb++) ", KindLine},    // pdb++
	{"❯ ", KindLine},          // starship
	{"λ ", KindLine},          // ghci, themed
	{"Your choice -> ", KindLine},
	{"MariaDB [(none)]> ", KindLine},
	{"127.0.0.1:6379> ", KindLine}, // redis-cli
	{"iex(1)> ", KindLine},         // elixir
	{"octave:1> ", KindLine},
	{"[bluetooth]# ", KindLine}, // bluetoothctl
	{"(parted) ", KindLine},
	{"Proceed ([y]/n)? ", KindLine},                                    // conda
	{"  Enter a value: ", KindLine},                                    // terraform
	{"\tFull Name []: ", KindLine},                                     // adduser
	{"Partition number (1-4, default 1): ", KindLine},                  // fdisk
	{"Username for 'https://github.com': ", KindLine},                  // git
	{"Change (N)ame, (C)omment, (E)mail or (O)kay/(Q)uit? ", KindLine}, // gpg
	{"45%\rName: ", KindLine},                                          // pipe mode: the row after a carriage return

	// Not prompts: output still being written, or progress.
	{"", ""},
	{"   ", ""},
	{"hello", ""},
	{"Compiling foo: ", ""},
	{"   Compiling serde v1.0.197", ""},
	{"collecting ... ", ""},
	{"collecting ...", ""},
	{"Downloading: ", ""},
	{"Building wheel for x (pyproject.toml): ", ""},
	{"Running tests: ", ""},
	{"Loading... ", ""},
	{"45% ", ""},
	{"[=====>     ] 45%", ""},
	{"Waiting for server: ", ""},
	{"tests/test_a.py::test_one ", ""},
	{"ok", ""},
	{"x" + string(make([]byte, 400)) + ": ", ""},
	{"... " + strings.Repeat(" ", 400), ""}, // too long for a prompt
	{"()", ""},
	{"(gdb) (gdb)", ""},
	{"Name:     ", ""}, // indentation follows only a continuation
	{"...", ""},        // dots of progress
	{"....  ", ""},
	{"(Reading database ... 45%", ""},

	// False friends: progress and log lines of real tools that end
	// like a prompt, or in a bracketed group.
	{"   Compiling cx v0.1.0 (/tmp/shape/cx)", ""},                                                   // cargo
	{"   Compiling serde_json v1.0.114 (registry+https://github.com/rust-lang/crates.io-index)", ""}, // cargo
	{"    Building [=======>                 ] 12/40: serde_json: ", ""},                             // cargo
	{"    Finished `dev` profile [unoptimized + debuginfo] target(s) in 1.45s", ""},                  // cargo
	{"warning: unused variable: `x`", ""},                                                            // rustc
	{"   |", ""},                                                                                     // rustc
	{"npm WARN deprecated inflight@1.0.6: This module is not supported (use lru-cache)", ""},         // npm
	{"(##########⠂⠂⠂⠂⠂⠂⠂⠂) ⠏ reify:typescript: timing reifyNode:node_modules/typescript Completed in 2400ms", ""},
	{"⠙ idealTree:npmt: sill idealTree buildDeps", ""},                                              // npm
	{"Requirement already satisfied: requests in ./venv/lib/python3.11/site-packages (2.31.0)", ""}, // pip
	{"  Downloading requests-2.31.0-py3-none-any.whl (62 kB)", ""},                                  // pip
	{"  Installing build dependencies ... ", ""},                                                    // pip
	{"  Preparing metadata (pyproject.toml): ", ""},                                                 // pip
	{"   ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━ 62.6/62.6 kB 2.1 MB/s eta 0:00:00", ""}, // pip
	{"go: downloading golang.org/x/text v0.14.0", ""},                                       // go build
	{"./main.go:5:2: undefined: foo", ""},                                                   // go build
	{"# command-line-arguments", ""},                                                        // go build
	{"--- PASS: TestFoo (0.00s)", ""},                                                       // go test
	{"?   \tgithub.com/x/y\t[no test files]", ""},                                           // go test
	{"Reading package lists... 45%", ""},                                                    // apt
	{"Get:1 http://deb.debian.org/debian bookworm InRelease [151 kB]", ""},                  // apt
	{"0% [Working]", ""},                                                                    // apt
	{"Progress: [ 45%] [###########.........................]", ""},                         // apt
	{"Unpacking ruby3.1 (3.1.2-7+deb12u1) ...", ""},                                         // apt
	{"Fetched 1,234 kB in 1s (1,234 kB/s)", ""},                                             // apt
	{"abc123def456: Pulling fs layer", ""},                                                  // docker
	{"abc123def456: Downloading [=====>      ]  1.2MB/3.4MB", ""},                           // docker
	{"#5 [2/3] RUN apk add --no-cache curl", ""},                                            // docker
	{" => [internal] load build definition from Dockerfile", ""},                            // docker
	{"Step 1/3 : FROM alpine:3.19", ""},                                                     // docker
	{"make[1]: Entering directory '/tmp/x'", ""},                                            // make
	{"make: *** [Makefile:2: all] Error 2", ""},                                             // make
	{"foo.c: In function 'main':", ""},                                                      // gcc
	{"foo.c:3:5: warning: unused variable 'x' [-Wunused-variable]", ""},                     // gcc
	{"tests/test_a.py ..", ""},                                                              // pytest
	{"tests/test_a.py ..                                                       [ 66%]", ""}, // pytest
	{"tests/test_a.py::test_slow ", ""},                                                     // pytest -v
	{"running 3 tests", ""},                                                                 // cargo test
	{" RUNS  src/sum.test.js", ""},                                                          // jest
	{"Determining test suites to run...", ""},                                               // jest
	{"  ✓ adds 1 + 2 to equal 3 (2 ms)", ""},                                                // jest
	{"Test Suites: 0 of 1 total", ""},                                                       // jest
	{"Receiving objects:  45% (9/20)", ""},                                                  // git clone
	{"Downloading... 45%", ""},
	{"Connecting to db.internal:5432: ", ""},
	{"2024-05-01T10:00:00Z INFO waiting for leader: ", ""}, // a log
	{"2024/05/01 10:00:00 retrying in 1s:", ""},
	{"[2024-05-01 10:00:00] Listening on: ", ""},                                    // Go's log
	{"[10:00:00] Bundling main.js: ", ""},                                           // a log
	{`time="2024-05-01T10:00:00Z" level=info msg="queue:"`, ""},                     // logrus
	{"(Reading database ... 12345 files and directories currently installed.)", ""}, // dpkg
}

func TestLooksLikePrompt(t *testing.T) {
	for _, tt := range rows {
		kind, ok := looksLikePrompt(tt.line)
		if ok != (tt.kind != "") || kind != tt.kind {
			t.Errorf("looksLikePrompt(%q) = %q, %v; want %q", tt.line, kind, ok, tt.kind)
		}
	}
}

// The model against the list of line shapes it replaced, on the rows
// above: "go test -run '^$' -bench LooksLike -count 6 ./prompt/".
func BenchmarkLooksLike(b *testing.B) {
	for _, bb := range []struct {
		name string
		f    func(string) (Kind, bool)
	}{{"model", looksLikePrompt}, {"baseline", baselineLooksLikePrompt}} {
		b.Run(bb.name, func(b *testing.B) {
			for b.Loop() {
				for _, r := range rows {
					bb.f(r.line)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(rows)), "ns/row")
		})
	}
}

// A masked prompt shows one '*' per key typed; it is a password prompt with
// or without them, and other lines are not.
func TestMaskedPasswordPrompt(t *testing.T) {
	for line, want := range map[string]bool{
		"Password: ":            true,
		"Password: ****":        true,
		"  Enter passphrase:**": true,
		"PIN: *":                true,
		"Name: ":                false,
		"**** ":                 false,
		"password reset done":   false,
		">>> ":                  false,
	} {
		if got := maskedPassword(line); got != want {
			t.Errorf("maskedPassword(%q) = %v, want %v", line, got, want)
		}
	}
}

// A program's output is not trusted: whatever a row holds (broken UTF-8,
// unbalanced brackets, control characters), reading it neither panics nor
// takes a row longer than a prompt for one.
func FuzzLooksLikePrompt(f *testing.F) {
	for _, r := range rows {
		f.Add(r.line)
	}
	f.Add("\xff(\xc3)")
	f.Add("]]]]((((: ")
	f.Fuzz(func(t *testing.T, line string) {
		kind, ok := looksLikePrompt(line)
		if ok != (kind != "") {
			t.Fatalf("%q: kind %q, ok %v", line, kind, ok)
		}
		row := line[strings.LastIndexByte(line, '\r')+1:]
		if ok && len(strings.TrimLeft(row, " \t")) > maxPromptLen {
			t.Fatalf("%q: a row of %d bytes taken for a prompt", line, len(row))
		}
	})
}

// A REPL's own prompt, bare or naming it, against questions that a timer
// may follow.
func TestREPLPrompt(t *testing.T) {
	tests := []struct {
		line        string
		bare, named bool
	}{
		{"> ", true, false},
		{">>> ", true, false},
		{"debug> ", false, true},
		{"mysql> ", false, true},
		{"(Pdb) ", false, true},
		{"irb(main):001:0> ", false, true},
		{"scheme@(guile-user)> ", false, true},
		{"debug>", false, false}, // the cursor is not after the prompt
		{"Signing in as ada: ", false, false},
		{"Password: ", false, false},
		{"Continue? ", false, false},
		{"3 > ", false, false},
	}
	for _, tt := range tests {
		if b, n := isBarePrompt(tt.line), isNamedPrompt(tt.line); b != tt.bare || n != tt.named || isREPLPrompt(tt.line) != (tt.bare || tt.named) {
			t.Errorf("%q: bare %v named %v, want %v %v", tt.line, b, n, tt.bare, tt.named)
		}
	}
}
