package prompt

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/yieldshell/yieldshell/screen"
)

// TestTranscripts runs terminal output captured from real programs
// (testdata/transcripts, 120x40, TERM=xterm-256color) through the mark
// scanner and the terminal cleaner, as the session does, and checks what
// the detector makes of the line the program left the cursor on. The
// false friends are output that pauses mid-line without asking anything.
func TestTranscripts(t *testing.T) {
	want := map[string]struct {
		kind   Kind // "" means: not a prompt
		prompt string
		marks  string // the kinds of the marks found, in order
	}{
		"python_repl":         {KindLine, ">>> ", ""},
		"python_continuation": {KindLine, "... ", ""},
		"node_repl":           {KindLine, "> ", ""},
		"pdb":                 {KindLine, "(Pdb) ", ""},
		"gdb":                 {KindLine, "(gdb) ", ""},
		"getpass":             {KindPassword, "Password: ", ""},
		"read_p":              {KindLine, "Your name? ", ""},
		"apt_confirm":         {KindLine, "Do you want to continue? [Y/n] ", ""},
		"bash_prompt_color":   {KindLine, "root@vm:/tmp# ", ""},
		"bash_marks":          {KindLine, "root@vm:/tmp# ", "DABCDAB"},
		"pytest_collecting":   {"", "collecting ... ", ""},
		"cargo_building":      {"", "    Building [=======>                 ] 12/40: serde_json: ", ""},
		"pip_downloading":     {"", "", ""},
		"make_building":       {"", "building target all: ", ""},
		// Issue 32 cause 1: programs that wait in a poll, where the row
		// alone decides.
		"npm_init_version":     {KindLine, "version: (1.0.0) ", ""},
		"npm_init_entry":       {KindLine, "entry point: (index.js) ", ""},
		"python313_indent":     {KindLine, "...         ", ""},
		"ipython_continuation": {KindLine, "   ...:     ", ""},
		"irb_continuation":     {KindLine, "irb(main):003:2*     ", ""},
		"sqlite3_continuation": {KindLine, "   ...> ", ""},
		"gpg_keysize":          {KindLine, "What keysize do you want? (3072) ", ""},
		"openssl_req":          {KindLine, "State or Province Name (full name) [Some-State]:", ""},
	}
	files, err := filepath.Glob("testdata/transcripts/*.raw")
	if err != nil || len(files) != len(want) {
		t.Fatalf("%d transcripts for %d expectations (%v)", len(files), len(want), err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".raw")
		w, ok := want[name]
		if !ok {
			t.Errorf("%s: no expectation", name)
			continue
		}
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var s Scanner
		text, marks := s.Write(nil, raw, nil)
		var kinds strings.Builder
		for _, m := range marks {
			kinds.WriteByte(m.Kind)
		}
		c := screen.NewCleaner(120)
		c.Write(nil, text)
		line, atEnd := c.Line()
		if w.prompt != "" && (line != w.prompt || !atEnd) {
			t.Errorf("%s: line %q (cursor at end %v), want %q", name, line, atEnd, w.prompt)
		}
		kind, isPrompt := looksLikePrompt(line)
		if isPrompt != (w.kind != "") || kind != w.kind {
			t.Errorf("%s: looksLikePrompt(%q) = %q, %v; want %q", name, line, kind, isPrompt, w.kind)
		}
		if kinds.String() != w.marks {
			t.Errorf("%s: marks %q, want %q", name, kinds.String(), w.marks)
		}
	}
}
