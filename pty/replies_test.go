//go:build unix

package pty

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// A reply is written only while the group it is for is in the foreground
// (issue 30 item 1).
func TestWriteReplyOnlyToItsGroup(t *testing.T) {
	r := newTestReaper(t)
	tp := start(t, r, shell(onTerminal, `stty -echo; echo ready; read x; echo "got:$x"`))
	tp.out.match(t, "ready")
	ctx := t.Context()
	if wrote, err := tp.WriteReply(ctx, tp.Pid()+1, []byte("other\r")); err != nil || wrote {
		t.Fatalf("WriteReply to a group not in the foreground = %v, %v; want not written", wrote, err)
	}
	if wrote, err := tp.WriteReply(ctx, tp.Pid(), []byte("mine\r")); err != nil || !wrote {
		t.Fatalf("WriteReply to the foreground group = %v, %v; want written", wrote, err)
	}
	tp.out.match(t, `got:mine\r?\n`)
	tp.wait(t)
}

// WriteCommand discards the replies a line editor (non-canonical mode) has
// not read and keeps what was typed and is still unread, in order.
func TestWriteCommandDiscardsUnreadReplies(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "go")
	if err := unix.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	r := newTestReaper(t)
	// The program holds its input unread until the test says go.
	tp := start(t, r, shell(onTerminal, `exec 3<>`+fifo+`; stty -icanon -echo; echo ready; read go <&3; head -c 5 | od -An -c`))
	tp.out.match(t, "ready")
	ctx := context.Background()
	if wrote, err := tp.WriteReply(ctx, tp.Pid(), []byte("\x1b[0n")); err != nil || !wrote {
		t.Fatalf("WriteReply = %v, %v", wrote, err)
	}
	if err := tp.WriteInput(ctx, []byte("ab")); err != nil {
		t.Fatal(err)
	}
	if wrote, err := tp.WriteReply(ctx, tp.Pid(), []byte("\x1b[1;1R")); err != nil || !wrote {
		t.Fatalf("WriteReply = %v, %v", wrote, err)
	}
	if err := tp.WriteCommand(ctx, []byte("cd\n")); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(fifo, os.O_WRONLY|unix.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.Write([]byte("\n"))
	_ = f.Close()
	if err != nil {
		t.Fatal(err)
	}
	tp.out.match(t, `a +b +c +d +\\n`)
	tp.wait(t)
}
