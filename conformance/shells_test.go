//go:build unix

package conformance

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// integratedShells are the shells a session integrates, each with the
// syntax its tests need.
var integratedShells = []struct {
	name string
	// setVar sets GREETING to hello in the current directory dir and then
	// runs false.
	setVar func(dir string) string
}{
	{"bash", func(dir string) string { return "cd " + dir + " && GREETING=hello; false" }},
	{"zsh", func(dir string) string { return "cd " + dir + " && GREETING=hello; false" }},
	{"fish", func(dir string) string { return "cd " + dir + "; and set -g GREETING hello; false" }},
}

// forEachShell runs f for each integrated shell that is installed, at each
// protocol version, with the shell started and waiting at its first prompt.
// HOME is a new directory, so the user's own files do not count unless a
// test writes them there (files, relative to HOME), and each fish start is
// a first start: fish builds its completions meanwhile, in a job of its own
// process group (issue 15 item 2: "fish's first start ... waits out the
// whole yield_ms").
func forEachShell(t *testing.T, f func(t *testing.T, s *server, shell, id string), files ...map[string]string) {
	for _, sh := range integratedShells {
		t.Run(sh.name, func(t *testing.T) {
			need(t, sh.name)
			forEachProtocol(t, nil, func(t *testing.T, s *server) {
				home := t.TempDir()
				for _, fs := range files {
					tree := map[string]string{}
					for name, content := range fs {
						tree[filepath.Join(home, name)] = content
					}
					writeTree(t, tree)
				}
				r := waiting(t, s.exec(sh.name, map[string]any{"yield_ms": longYield, "env": map[string]string{"HOME": home}}), "command")
				if r.str("input_signal") != "prompt_mark" {
					t.Fatalf("exec %s: %s", sh.name, r.text)
				}
				f(t, s, sh.name, r.str("process_id"))
			})
		})
	}
}

// codes returns an answer's command_exit_codes.
func codes(r result) []int {
	list, _ := r.m["command_exit_codes"].([]any)
	var out []int
	for _, v := range list {
		f, _ := v.(float64)
		out = append(out, int(f))
	}
	return out
}

// hasLine reports whether the answer's stdout has line as a whole line.
func hasLine(r result, line string) bool {
	return slices.Contains(strings.Split(r.str("stdout"), "\n"), line)
}

// zsh and fish are persistent sessions as bash is: each command answers
// when it finishes, with its exit code; cwd and variables carry over; a
// question asked by a program in the shell is answered as such.
//
// Spec: issue 15 item 4: "zsh and fish get the same integration as bash".
func TestPromptShellSessions(t *testing.T) {
	forEachShell(t, func(t *testing.T, s *server, shell, id string) {
		dir := t.TempDir()
		var set func(string) string
		for _, sh := range integratedShells {
			if sh.name == shell {
				set = sh.setVar
			}
		}
		a := waiting(t, s.reply(id, set(dir)), "command")
		if a.num("command_exit_code") != 1 || !a.has("command_exit_code") {
			t.Errorf("false: %s", a.text)
		}
		a = waiting(t, s.reply(id, `sleep 0.3; echo "$GREETING from $PWD"`), "command")
		if a.num("command_exit_code") != 0 || !a.has("command_exit_code") || !hasLine(a, "hello from "+dir) {
			t.Errorf("echo: %s", a.text)
		}
		if strings.Contains(a.text, "133;") {
			t.Errorf("a shell-integration mark reached the output: %s", a.text)
		}
		a = waiting(t, s.reply(id, `sh -c 'printf "Sure? [y/N] "; read ok; [ "$ok" = y ]'`), "confirm")
		a = waiting(t, s.reply(id, "y"), "command")
		if a.num("command_exit_code") != 0 || !a.has("command_exit_code") {
			t.Errorf("a question in the shell: %s", a.text)
		}
		end := s.reply(id, "exit 3")
		if end.str("status") != "completed" || end.num("exit_code") != 3 {
			t.Errorf("exit: %s", end.text)
		}
	})
}

// Several lines in one write answer after the last of them, with its exit
// code and each one's in order.
//
// Spec: issue 15 item 4: "The answer must come after the last command submitted, with its exit code (and each command's code, in order, when there were several)."
func TestPromptShellSeveralLines(t *testing.T) {
	forEachShell(t, func(t *testing.T, s *server, shell, id string) {
		a := waiting(t, s.reply(id, "sleep 0.5; echo one\necho two\nsh -c 'exit 4'"), "command")
		if a.num("command_exit_code") != 4 || !slices.Equal(codes(a), []int{0, 0, 4}) {
			t.Errorf("answer: %s", a.text)
		}
		if !hasLine(a, "one") || !hasLine(a, "two") {
			t.Errorf("the commands' output is missing: %q", a.str("stdout"))
		}
	})
}

// A line typed while a command runs answers after that line's command,
// with the running command's code and its own.
//
// Spec: issue 15 item 4: "typing while a command still runs does the same".
func TestPromptShellTypeahead(t *testing.T) {
	forEachShell(t, func(t *testing.T, s *server, shell, id string) {
		w := s.call("write", map[string]any{"process_id": id, "input": "sleep 0.5; sh -c 'exit 3'", "newline": true})
		if w.isError {
			t.Fatal(w.text)
		}
		a := waiting(t, s.reply(id, "echo typed"), "command")
		if a.num("command_exit_code") != 0 || !slices.Equal(codes(a), []int{3, 0}) || !hasLine(a, "typed") {
			t.Errorf("answer: %s", a.text)
		}
	})
}

// A command that finishes after the write's yield: wait and read report
// its exit code.
//
// Spec: issue 15 item 4: "wait or read after a command finished in the background has no command_exit_code".
func TestPromptShellCodeAfterYield(t *testing.T) {
	forEachShell(t, func(t *testing.T, s *server, shell, id string) {
		w := s.call("write", map[string]any{"process_id": id, "input": "sleep 0.5; sh -c 'exit 5'", "newline": true, "yield_ms": 100})
		if w.str("yield_reason") != "yield_elapsed" || w.has("command_exit_code") {
			t.Fatalf("write: %s", w.text)
		}
		a := s.call("wait", map[string]any{"process_id": id, "timeout_ms": longYield})
		waiting(t, a, "command")
		if a.num("command_exit_code") != 5 || !a.has("command_exit_code") || a.has("command_exit_codes") {
			t.Errorf("wait: %s", a.text)
		}
		r := s.call("read", map[string]any{"process_id": id})
		if r.num("command_exit_code") != 5 || !r.has("command_exit_code") {
			t.Errorf("read: %s", r.text)
		}
	})
}

// The user's own configuration does what it does without us: start-up
// files are read (zsh from the user's ZDOTDIR, which the shell then sees
// unchanged), their prompt is the prompt, their aliases work.
//
// Spec: issue 15 item 4: "without changing what the user's own configuration does".
func TestPromptShellUserConfig(t *testing.T) {
	files := map[string]string{
		".bashrc": "PS1='bash-user> '\nalias hi='echo hi from bash'\n",
		".zshenv": "ZDOTDIR=$HOME/zdot\nexport FROM_ZSHENV=yes\n",
		"zdot/.zshrc": "PROMPT='zsh-user> '\nalias hi='echo hi from zsh'\ntypeset -A table=(k v)\n" +
			"precmd() { LAST=$? }\n",
		".config/fish/config.fish": "function fish_prompt; echo -n 'fish-user> '; end\nalias hi 'echo hi from fish'\n",
	}
	forEachShell(t, func(t *testing.T, s *server, shell, id string) {
		a := waiting(t, s.reply(id, "hi"), "command")
		if !hasLine(a, "hi from "+shell) || a.str("prompt") != shell+"-user> " {
			t.Errorf("alias and prompt: %s", a.text)
		}
		if shell != "zsh" {
			return
		}
		a = waiting(t, s.reply(id, `echo "$FROM_ZSHENV ${ZDOTDIR#$HOME/} ${table[k]}"`), "command")
		if !hasLine(a, "yes zdot v") {
			t.Errorf("the user's zsh files: %s", a.text)
		}
		a = waiting(t, s.reply(id, "sh -c 'exit 7'"), "command")
		a = waiting(t, s.reply(id, `echo "last=$LAST"`), "command")
		if !hasLine(a, "last=7") || a.num("command_exit_code") != 0 {
			t.Errorf("the user's precmd sees the exit code: %s", a.text)
		}
	}, files)
}
