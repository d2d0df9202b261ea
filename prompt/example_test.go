package prompt_test

import (
	"fmt"
	"time"

	"github.com/yieldshell/yieldshell/prompt"
	"github.com/yieldshell/yieldshell/screen"
)

// recorded answers a decision's questions about a program from what was
// seen of it: the kernel found a thread blocked reading its terminal, which
// reads lines and echoes them.
type recorded struct{}

func (recorded) Probe(shell bool) prompt.Probe {
	return prompt.Probe{Activity: prompt.Reading, Reader: prompt.Task{Pid: 4242, Tid: 4242}}
}
func (recorded) Switches(prompt.Task) (uint64, bool)      { return 0, false }
func (recorded) Listening() []int                         { return nil }
func (recorded) Programs(*prompt.Relay) []string          { return []string{"apt"} }
func (recorded) Pending() bool                            { return false }
func (recorded) Typeahead() bool                          { return false }
func (recorded) Modes() (echo, canonical bool, err error) { return true, true, nil }
func (recorded) Replying() bool                           { return false }
func (recorded) Unchanged() bool                          { return true }
func (recorded) ScreenSum() (uint64, bool)                { return 0, false }
func (recorded) Screen() *screen.Styled                   { return nil }
func (recorded) CursorRow() string                        { return "" }
func (recorded) Tail(n int) string {
	return "Need to get 2,048 kB of archives.\nDo you want to continue? [Y/n] "
}

// Is this process waiting, and for what? One observation taken at one
// instant, and the evidence asked only as the decision needs it.
func ExampleDetector_Decide() {
	var d prompt.Detector // one per program: it remembers what it saw
	st := d.Decide(prompt.Observation{
		TTY:     true,
		Quiet:   time.Second, // nothing printed since
		Line:    "Do you want to continue? [Y/n] ",
		AtEnd:   true,
		Outputs: 12,
	}, recorded{})
	fmt.Println(st.Waiting, st.Kind, st.Signal, st.Confidence)
	fmt.Printf("type one of %q; Enter alone takes %q\n", st.Grammar.Choices, st.Grammar.Default)
	// Output:
	// true confirm tty_read high
	// type one of ["y" "n"]; Enter alone takes "y"
}

// The prompt grammar on a line: what a question asks, and what an answer
// can be.
func ExampleClassify() {
	for _, line := range []string{"Proceed (y/n)? ", "Overwrite? [y/N] ", "... "} {
		g := prompt.Classify(prompt.Context{Line: line})
		fmt.Printf("%-20q %-12s choices %q default %q\n", line, g.Kind, g.Choices, g.Default)
	}
	// Output:
	// "Proceed (y/n)? "    confirm      choices ["y" "n"] default ""
	// "Overwrite? [y/N] "  confirm      choices ["y" "n"] default "n"
	// "... "               continuation choices [] default ""
}

// Every kind of input a decision reports, with what it asks of one who
// answers.
func ExampleKinds() {
	for _, k := range prompt.Kinds() {
		fmt.Printf("%s: %s\n", k, k.Meaning())
	}
	// Output:
	// line: a line of text
	// password: a secret is asked
	// command: a shell prompt
	// confirm: type one of choices; Enter alone takes default
	// choice: a menu
	// continuation: the rest of an unfinished statement
	// pager: Space pages, q quits
	// editor: a full-screen editor
}
