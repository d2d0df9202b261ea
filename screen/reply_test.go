package screen

import "testing"

func TestAppendReply(t *testing.T) {
	st := replyState{Row: 3, Col: 7, Autowrap: true, CursorVisible: true}
	tests := []struct {
		name string
		q    query
		st   replyState
		want string
	}{
		{"DA1", query{Kind: qDA1}, st, "\x1b[?62;22c"},
		{"DA2", query{Kind: qDA2}, st, "\x1b[>1;10;0c"},
		{"DSR status", query{Kind: qStatus}, st, "\x1b[0n"},
		{"CPR", query{Kind: qCursor}, st, "\x1b[3;7R"},
		{"DECXCPR", query{Kind: qExtCursor}, st, "\x1b[?3;7;1R"},
		{"DECRQM autowrap set", query{Kind: qMode, N: 7, Private: true}, st, "\x1b[?7;1$y"},
		{"DECRQM app cursor reset", query{Kind: qMode, N: 1, Private: true}, st, "\x1b[?1;2$y"},
		{"DECRQM alt screen", query{Kind: qMode, N: 1049, Private: true}, replyState{AltScreen: true}, "\x1b[?1049;1$y"},
		{"DECRQM cursor visible", query{Kind: qMode, N: 25, Private: true}, st, "\x1b[?25;1$y"},
		{"DECRQM origin", query{Kind: qMode, N: 6, Private: true}, st, "\x1b[?6;2$y"},
		{"DECRQM unknown private", query{Kind: qMode, N: 2004, Private: true}, st, "\x1b[?2004;0$y"},
		{"DECRQM insert (ANSI)", query{Kind: qMode, N: 4}, replyState{Insert: true}, "\x1b[4;1$y"},
		{"DECRQM unknown ANSI", query{Kind: qMode, N: 20}, st, "\x1b[20;0$y"},
		{"XTVERSION", query{Kind: qVersion}, st, "\x1bP>|yieldshell\x1b\\"},
		{"OSC 10 BEL", query{Kind: qColour, N: 10, ST: "\a"}, st, "\x1b]10;rgb:e5e5/e5e5/e5e5\a"},
		{"OSC 11 ST", query{Kind: qColour, N: 11, ST: "\x1b\\"}, st, "\x1b]11;rgb:0000/0000/0000\x1b\\"},
		{"OSC 12", query{Kind: qColour, N: 12, ST: "\a"}, st, "\x1b]12;rgb:e5e5/e5e5/e5e5\a"},
		{"kitty keyboard: silence", query{Kind: qKitty}, st, ""},
	}
	for _, tc := range tests {
		if got := string(appendReply(nil, tc.q, tc.st)); got != tc.want {
			t.Errorf("%s: got %q want %q", tc.name, got, tc.want)
		}
	}
}

// TestCleanerReplies feeds queries in the stream and checks the replies,
// in order, from the state at each query.
func TestCleanerReplies(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"CPR after text", "ab\r\ncd\x1b[6n", "\x1b[2;3R"},
		{"CPR in order", "\x1b[6nx\x1b[6n\x1b[5n", "\x1b[1;1R\x1b[1;2R\x1b[0n"},
		{"CPR at the pending wrap", "\x1b[1;80Hx\x1b[6n", "\x1b[1;80R"},
		{"CPR after a wide char", "中\x1b[6n", "\x1b[1;3R"},
		{"CPR in origin mode", "\x1b[5;10r\x1b[?6h\x1b[2;4H\x1b[6n\x1b[?6n", "\x1b[2;4R\x1b[?2;4;1R"},
		{"CPR in the alternate screen", "\x1b[?1049h\x1b[10;20H\x1b[6n", "\x1b[10;20R"},
		{"DA1 DA2", "\x1b[c\x1b[0c\x1b[>c\x1b[>0c\x1b[>1c", "\x1b[?62;22c\x1b[?62;22c\x1b[>1;10;0c\x1b[>1;10;0c"},
		{"DECRQM follows modes", "\x1b[?1$p\x1b[?1h\x1b[?1$p\x1b[4h\x1b[4$p", "\x1b[?1;2$y\x1b[?1;1$y\x1b[4;1$y"},
		{"XTVERSION", "\x1b[>q\x1b[>0q", "\x1bP>|yieldshell\x1b\\\x1bP>|yieldshell\x1b\\"},
		{"OSC colours", "\x1b]10;?\x07\x1b]11;?\x1b\\\x1b]12;?\x07\x1b]4;1;?\x07\x1b]10;red\x07", "\x1b]10;rgb:e5e5/e5e5/e5e5\x07\x1b]11;rgb:0000/0000/0000\x1b\\\x1b]12;rgb:e5e5/e5e5/e5e5\x07"},
		{"kitty then DA1", "\x1b[?u\x1b[c", "\x1b[?62;22c"},
		{"no query, no reply", "\x1b[6;1H\x1b[?6l\x1b[m\x1b[2 q\x1b[!p", ""},
	}
	for _, tc := range tests {
		c := NewTerminal(80, 24)
		out := c.Write(nil, []byte(tc.in))
		if got := string(c.TakeReplies(nil)); got != tc.want {
			t.Errorf("%s: replies %q want %q", tc.name, got, tc.want)
		}
		if len(c.TakeReplies(nil)) != 0 {
			t.Errorf("%s: replies not forgotten", tc.name)
		}
		checkClean(t, []byte(tc.in), c.Close(out))
	}
}

// A program that floods queries and never reads: the replies waiting are
// bounded and the rest counted.
func TestCleanerRepliesBounded(t *testing.T) {
	c := NewTerminal(80, 24)
	for range 10000 {
		c.Write(nil, []byte("\x1b[6n"))
	}
	if n := len(c.TakeReplies(nil)); n > ReplyCap {
		t.Fatalf("%d bytes of replies held", n)
	}
	if c.DroppedReplies() == 0 {
		t.Fatal("nothing counted as dropped")
	}
}
