package prompt

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/yieldshell/yieldshell/screen"
)

// Prompt lines as real programs print them, and what an agent must read
// from them.
func TestClassifyLines(t *testing.T) {
	tests := []struct {
		program, line string
		kind          Kind
		choices       []string
		def           string
	}{
		{"apt-get", "Do you want to continue? [Y/n] ", KindConfirm, []string{"y", "n"}, "y"},
		{"ssh", "Are you sure you want to continue connecting (yes/no/[fingerprint])? ", KindConfirm, []string{"yes", "no"}, ""},
		{"npm init", "package name: (foo) ", KindLine, nil, "foo"},
		{"npm init", "version: (1.0.0) ", KindLine, nil, "1.0.0"},
		{"npm init", "entry point: (index.js) ", KindLine, nil, "index.js"},
		{"npm init", "Is this OK? (yes) ", KindConfirm, []string{"yes", "no"}, "yes"},
		{"git add -p", "(1/1) Stage this hunk [y,n,q,a,d,e,?]? ", KindConfirm, []string{"y", "n", "q", "a", "d", "e", "?"}, ""},
		{"pip uninstall", "Proceed (Y/n)? ", KindConfirm, []string{"y", "n"}, "y"},
		{"rm -i", "rm: remove regular file 'x'? ", KindLine, nil, ""},
		{"bash read", "Overwrite config? [y/N] ", KindConfirm, []string{"y", "n"}, "n"},
		{"gdb", "Make breakpoint pending on future shared library load? (y or [n]) ", KindConfirm, []string{"y", "n"}, "n"},
		{"gdb", "Quit anyway? (y or n) ", KindConfirm, []string{"y", "n"}, ""},
		{"dpkg", "*** config (Y/I/N/O/D/Z) [default=N] ? ", KindConfirm, []string{"Y", "I", "N", "O", "D", "Z"}, "N"},
		{"debconf", "Overwrite? [yes|no] (default: no) ", KindConfirm, []string{"yes", "no"}, "no"},
		{"ssh-keygen", "Enter file in which to save the key (/root/.ssh/id_ed25519): ", KindLine, nil, "/root/.ssh/id_ed25519"},
		{"adduser", "Full Name [John Doe]: ", KindLine, nil, "John Doe"},
		{"a range", "Select an option (1-3): ", KindLine, nil, ""},
		{"inquirer hint", "? Which framework? (Use arrow keys)", KindLine, nil, ""},
		{"python", ">>> ", KindLine, nil, ""},
		{"python", "... ", KindContinuation, nil, ""},
		{"ipython", "   ...:     ", KindContinuation, nil, ""},
		{"sqlite3", "   ...> ", KindContinuation, nil, ""},
		{"irb", "irb(main):003:1*   ", KindContinuation, nil, ""},
		{"irb", "irb(main):001:0> ", KindLine, nil, ""},
		{"psql", "postgres-# ", KindContinuation, nil, ""},
		{"psql", "postgres=# ", KindLine, nil, ""},
		{"psql", "app(> ", KindContinuation, nil, ""},
		{"mysql", "    -> ", KindContinuation, nil, ""},
		{"R", "+ ", KindContinuation, nil, ""},
		{"pdb", "(Pdb) ", KindLine, nil, ""},
		{"gdb", "(gdb) ", KindLine, nil, ""},
		{"node", "> ", KindLine, nil, ""},
		// Issue 32 cause 1: auto-indent after a continuation prompt, and
		// defaults holding any characters.
		{"python 3.13", "...     ", KindContinuation, nil, ""},
		{"python 3.13", "...         ", KindContinuation, nil, ""},
		{"ipython", "   ...:         ", KindContinuation, nil, ""},
		{"irb", "irb(main):003:2*     ", KindContinuation, nil, ""},
		{"sqlite3", "   ...>     ", KindContinuation, nil, ""},
		{"node", "... ", KindContinuation, nil, ""},
		{"npm init", "license: (ISC) ", KindLine, nil, "ISC"},
		{"npm init", "test command: ", KindLine, nil, ""},
		{"gpg", "What keysize do you want? (3072) ", KindLine, nil, "3072"},
		{"gpg", "Key is valid for? (0) ", KindLine, nil, "0"},
		{"openssl req", "Country Name (2 letter code) [AU]:", KindLine, nil, "AU"},
		{"openssl req", "Locality Name (eg, city) []:", KindLine, nil, ""},
		{"a CLI", "Enter version [1.0.0] ", KindLine, nil, "1.0.0"},
		{"a CLI", "Name [default]: ", KindLine, nil, "default"},
		{"cargo", "   Compiling cx v0.1.0 (/tmp/shape/cx)", KindLine, nil, ""},
		// Issue 43 cause 1: a hint in brackets is no default.
		{"gdisk", "Command (? for help): ", KindLine, nil, ""},
		{"fdisk", "Command (m for help): ", KindLine, nil, ""},
		{"certtool", "Country name (2 chars): ", KindLine, nil, ""},
		{"certtool", "The certificate will expire in (days): ", KindLine, nil, ""},
		{"a CLI", "Password (8 or more characters): ", KindLine, nil, ""},
		{"a CLI", "Timeout (in seconds): ", KindLine, nil, ""},
		{"a CLI", "Company (optional): ", KindLine, nil, ""},
		{"a CLI", "Nickname (max 16 chars): ", KindLine, nil, ""},
		{"openssl req", "Organizational Unit Name (eg, section) []:", KindLine, nil, ""},
		{"fdisk", "Partition number (1-128, default 1): ", KindLine, nil, "1"},
		{"fdisk", "First sector (2048-20971486, default 2048): ", KindLine, nil, "2048"},
		{"fdisk", "Last sector, +/-sectors or +/-size{K,M,G,T,P} (2048-20971486, default 20971486): ", KindLine, nil, "20971486"},
		{"fdisk", "Select (default p): ", KindLine, nil, "p"},
		{"gdisk", "Hex code or GUID (L to show codes, Enter = 8300): ", KindLine, nil, "8300"},
		{"chage", "Maximum Password Age [99999]: ", KindLine, nil, "99999"},
	}
	for _, tt := range tests {
		g := Classify(Context{Kind: KindLine, Line: tt.line})
		if g.Kind != tt.kind || !slices.Equal(g.Choices, tt.choices) || g.Default != tt.def {
			t.Errorf("%s %q: got %s %q default %q, want %s %q default %q", tt.program, tt.line, g.Kind, g.Choices, g.Default, tt.kind, tt.choices, tt.def)
		}
	}
}

// A line prompt's range of numbers is reported, beside its default or
// alone; a group that is no range reports none.
func TestClassifyRanges(t *testing.T) {
	tests := []struct {
		program, line string
		rng           *Range
	}{
		{"fdisk", "Partition number (1-128, default 1): ", &Range{1, 128}},
		{"fdisk", "First sector (2048-20971486, default 2048): ", &Range{2048, 20971486}},
		{"gdisk", "Partition number (1-128, default 1): ", &Range{1, 128}},
		{"a menu", "Select an option (1-3): ", &Range{1, 3}},
		{"a CLI", "How many workers? (1..16) ", &Range{1, 16}},
		{"a CLI", "Level [0 to 9]: ", &Range{0, 9}},
		{"a CLI", "Backwards (9-1): ", nil},
		{"fdisk", "Select (default p): ", nil},
		{"certtool", "Country name (2 chars): ", nil},
		{"npm init", "version: (1.0.0) ", nil},
		{"a log", "Retrying (1-3)", nil},
	}
	for _, tt := range tests {
		g := Classify(Context{Kind: KindLine, Line: tt.line})
		if (g.Range == nil) != (tt.rng == nil) || g.Range != nil && *g.Range != *tt.rng {
			t.Errorf("%s %q: range %v, want %v", tt.program, tt.line, g.Range, tt.rng)
		}
	}
}

// A password prompt or a shell's prompt stays what the evidence says.
func TestClassifyKeepsPasswordAndCommand(t *testing.T) {
	for _, k := range []Kind{KindPassword, KindCommand} {
		if g := Classify(Context{Kind: k, Line: "Continue? [Y/n] "}); g.Kind != k || g.Choices != nil {
			t.Errorf("%s: %+v", k, g)
		}
	}
}

// Screens recorded from real programs (testdata/screens/README.md), as a
// person sees them: the menu, its entries and the highlighted one.
func TestClassifyScreens(t *testing.T) {
	tests := []struct {
		file     string
		programs []string
		kind     Kind
		items    []string
		selected int
		checked  []int
	}{
		{"inquirer.raw", []string{"python3"}, KindChoice, []string{"React", "Vue", "Svelte", "Solid"}, 1, nil},
		{"fzf.raw", []string{"sh", "fzf"}, KindChoice, []string{"cherry", "banana", "apple"}, 2, nil},
		{"fzf-reverse.raw", []string{"sh", "fzf"}, KindChoice, []string{"apple", "banana", "cherry"}, 0, nil},
		{"whiptail-menu.raw", []string{"whiptail"}, KindChoice, []string{"postgres PostgreSQL", "mysql MySQL", "sqlite SQLite", "none No database"}, 0, nil},
		{"whiptail-menu-down.raw", []string{"whiptail"}, KindChoice, []string{"postgres PostgreSQL", "mysql MySQL", "sqlite SQLite", "none No database"}, 1, nil},
		{"whiptail-yesno.raw", []string{"whiptail"}, KindChoice, []string{"Yes", "No"}, 0, nil},
		{"whiptail-radio.raw", []string{"whiptail"}, KindChoice, []string{"bash", "zsh", "fish"}, 1, []int{1}},
		{"whiptail-check.raw", []string{"whiptail"}, KindChoice, []string{"auth", "cache", "logs"}, 0, []int{0, 2}},
		{"less.raw", []string{"less"}, KindPager, nil, -1, nil},
		{"less-space.raw", nil, KindPager, nil, -1, nil}, // ":" on the alternate screen
		{"vim.raw", []string{"vim.basic"}, KindEditor, nil, -1, nil},
		// Entry boxes: the cursor is in the field, so the dialog asks for
		// a line, not for one of its buttons (password boxes too: a
		// password needs the terminal's evidence, which Classify keeps).
		{"dialog-inputbox.raw", []string{"dialog"}, KindLine, nil, -1, nil},
		{"dialog-password.raw", []string{"dialog"}, KindLine, nil, -1, nil},
		{"whiptail-inputbox.raw", []string{"whiptail"}, KindLine, nil, -1, nil},
		{"whiptail-password.raw", []string{"whiptail"}, KindLine, nil, -1, nil},
		{"dialog-yesno.raw", []string{"dialog"}, KindChoice, []string{"Yes", "No"}, 0, nil},
		{"dialog-menu.raw", []string{"dialog"}, KindChoice, []string{"postgres PostgreSQL", "mysql MySQL", "sqlite SQLite"}, 0, nil},
		// A debugger's listing, its current line marked, above its prompt.
		{"node-inspect.raw", []string{"node"}, KindLine, nil, -1, nil},
	}
	for _, tt := range tests {
		b, err := os.ReadFile(filepath.Join("testdata", "screens", tt.file))
		if err != nil {
			t.Fatal(err)
		}
		s := screen.New(120, 40)
		s.Write(b)
		st := s.Styled()
		g := Classify(Context{Kind: KindLine, Line: st.Lines[st.CursorY], Screen: &st, Raw: true, Programs: tt.programs})
		if g.Kind != tt.kind || !slices.Equal(g.Items, tt.items) || g.Selected != tt.selected || !slices.Equal(g.Checked, tt.checked) {
			t.Errorf("%s: got %s %q selected %d checked %v, want %s %q selected %d checked %v",
				tt.file, g.Kind, g.Items, g.Selected, g.Checked, tt.kind, tt.items, tt.selected, tt.checked)
		}
	}
}

// Menus drawn as text: numbered entries above the prompt are typed by
// number; a REPL's history is no menu.
func TestClassifyTextMenus(t *testing.T) {
	tests := []struct {
		name    string
		out     string
		raw     bool
		kind    Kind
		items   []string
		choices []string
	}{
		{"bash select", "1) apple\r\n2) banana\r\n3) cherry\r\n#? ", false, KindChoice,
			[]string{"apple", "banana", "cherry"}, []string{"1", "2", "3"}},
		{"debconf columns", "Please select the geographic area.\r\n\r\n  1. Africa   3. Antarctica\r\n  2. America  4. Australia\r\nGeographic area: ", false, KindChoice,
			[]string{"Africa", "America", "Antarctica", "Australia"}, []string{"1", "2", "3", "4"}},
		{"node history", "> let a = 1\r\nundefined\r\n> a\r\n1\r\n> ", true, KindLine, nil, nil},
		{"bulleted output", "* one\r\n* two\r\n* three\r\nName: ", true, KindLine, nil, nil},
		{"colored output", "\x1b[31mFAIL\x1b[0m a\r\n\x1b[32mPASS\x1b[0m b\r\n\x1b[32mPASS\x1b[0m c\r\n> ", true, KindLine, nil, nil},
		{"htop header", "\x1b[?1049h\x1b[2;3H[Main] [I/O]\r\n  \x1b[30;42mPID USER      Command\x1b[0m\r\n\x1b[24;1HF1Help", true, KindLine, nil, nil},
		{"htop table", "\x1b[?1049h\x1b[2;3HPID USER\r\n\x1b[30;46m30502 root  a.test\x1b[0m\r\n30507 root  a.test\r\n30849 root  link\r\n    1 root  init\r\n\x1b[24;1HF1Help", true, KindLine, nil, nil},
		{"fzf two", "  banana\r\n\x1b[48;5;236m> \x1b[1mapple\x1b[0m\r\n  2/2 ─────\r\n> ", true, KindChoice,
			[]string{"banana", "apple"}, nil},
		{"pdb-like listing", "  1 a = 1\r\n> 2 b = 2\r\n  3 c = 3\r\n(Pdb) ", true, KindLine, nil, nil},
		{"marked output under a named prompt", "  one\r\n> two\r\n  three\r\ndebug> ", true, KindLine, nil, nil},
		{"inquirer menu under its question", "? Pick one\r\n\x1b[7m❯ apple\x1b[0m\r\n  banana\r\nsearch> ", true, KindChoice,
			[]string{"apple", "banana"}, nil},
		{"clack", "◆  Pick a project type.\r\n│  ● TypeScript\r\n│  ○ JavaScript\r\n└\r\n", true, KindChoice,
			[]string{"TypeScript", "JavaScript"}, nil},
	}
	for _, tt := range tests {
		s := screen.New(80, 24)
		s.Write([]byte(tt.out))
		st := s.Styled()
		g := Classify(Context{Kind: KindLine, Line: st.Lines[st.CursorY], Screen: &st, Raw: tt.raw})
		if g.Kind != tt.kind || !slices.Equal(g.Items, tt.items) || !slices.Equal(g.Choices, tt.choices) {
			t.Errorf("%s: got %s %q choices %q", tt.name, g.Kind, g.Items, g.Choices)
		}
	}
}

func TestServingHint(t *testing.T) {
	tests := []struct {
		above []string
		line  string
		want  bool
	}{
		{[]string{"  VITE v5.4.0  ready in 312 ms", "", "  ➜  Local:   http://localhost:5173/", "  ➜  press h + enter to show help"}, "", true},
		{[]string{"Watch Usage", " › Press a to run all tests.", " › Press q to quit watch mode."}, "", true},
		{[]string{"Press Enter to continue"}, "", false},
		{[]string{"press any key to continue"}, "", false},
		{[]string{"  ➜  press h + enter to show help"}, "Name: ", false},
	}
	for _, tt := range tests {
		if got := servingHint(tt.above, tt.line); got != tt.want {
			t.Errorf("%q / %q: %v, want %v", tt.above, tt.line, got, tt.want)
		}
	}
}
