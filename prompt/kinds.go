package prompt

// Kind says what a waiting program expects.
type Kind string

// The kinds of input: the evidence tells line, password and command; a
// prompt's grammar ([Classify]) refines a line into the others.
const (
	KindLine     Kind = "line"     // a line of text (a question, a REPL)
	KindPassword Kind = "password" // a secret: the terminal does not echo it
	KindCommand  Kind = "command"  // a shell prompt, ready for a command
	// KindConfirm: a question answered by typing one of Choices (y/n,
	// yes/no, git's y,n,q,a,d,e,?), with Default taken by a bare Enter
	// when the prompt shows one.
	KindConfirm Kind = "confirm"
	// KindChoice: a menu. Items drawn one per row (or as dialog buttons)
	// are picked with the arrow keys and Enter, from Selected; numbered
	// items by typing one of Choices.
	KindChoice Kind = "choice"
	// KindContinuation: a REPL's or a shell's prompt for the rest of an
	// unfinished statement (python's "... ", psql's "-#").
	KindContinuation Kind = "continuation"
	// KindPager: a pager (less, more) waits for a key: Space pages, q quits.
	KindPager Kind = "pager"
	// KindEditor: a full-screen editor (vim, nano) has the terminal.
	KindEditor Kind = "editor"
)

// kinds is every Kind with what it tells one who answers, in one line, in
// the order descriptions list them. A new kind is added here.
var kinds = []struct {
	kind    Kind
	meaning string
}{
	{KindLine, "a line of text"},
	{KindPassword, "a secret is asked"},
	{KindCommand, "a shell prompt"},
	{KindConfirm, "type one of choices; Enter alone takes default"},
	{KindChoice, "a menu"},
	{KindContinuation, "the rest of an unfinished statement"},
	{KindPager, "Space pages, q quits"},
	{KindEditor, "a full-screen editor"},
}

// Kinds returns every kind of input a decision can report, in the order
// descriptions list them.
func Kinds() []Kind {
	out := make([]Kind, len(kinds))
	for i, k := range kinds {
		out[i] = k.kind
	}
	return out
}

// Meaning says in one line what k asks of one who answers; "" for a kind
// that is not one of [Kinds].
func (k Kind) Meaning() string {
	for _, e := range kinds {
		if e.kind == k {
			return e.meaning
		}
	}
	return ""
}
