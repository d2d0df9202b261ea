// Package execproto is the protocol between a yieldshell server and an
// executor: the same binary started on another host (over ssh) that runs
// the commands there. It is newline-delimited JSON, one [Msg] a line, over
// any byte stream (the ssh command's stdin and stdout, a Unix socket).
//
// The server sends requests (an ID and an Op); the executor answers each
// with a message of the same ID and Reply set, and sends events of its own
// (ID 0): a process's output with its stream and sequence number (the
// position of its first byte in that stream, counted from 0), the end of
// a stream, and the process's exit. After a dropped connection the server
// says in its hello where each stream stood, and the executor sends on
// from there.
//
// A [Conn] bounds every line it reads ([MaxFrame]): a peer that sends a
// longer one, or anything that is not a message, ends the connection with
// an error rather than growing memory. Writes are serialised; one
// goroutine reads.
package execproto

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
)

// Version is the protocol's version, checked in the hello.
const Version = 1

// MaxFrame is the longest line a Conn reads. Output travels in chunks of
// at most [MaxChunk] bytes, which base64 makes 4/3 as long.
const (
	MaxFrame = 1 << 20
	MaxChunk = 64 << 10
)

// Ops: requests from the server.
const (
	OpHello     = "hello"
	OpStart     = "start"
	OpInput     = "input"   // Data to the process's input
	OpCommand   = "command" // Data to an integrated shell at its prompt
	OpReply     = "reply"   // Data as a reply to a query, if Pgrp is in the foreground
	OpCloseIn   = "closein"
	OpResize    = "resize"
	OpState     = "state" // the terminal's state: State
	OpSignal    = "signal"
	OpTree      = "tree" // signal the tree (Sig != 0) and/or ask if it lives
	OpHangUp    = "hangup"
	OpClose     = "close"
	OpInspect   = "inspect"
	OpSwitches  = "switches"
	OpPrograms  = "programs"
	OpListening = "listening"
)

// Events from the executor.
const (
	EvOutput = "out"
	EvEOF    = "eof"
	EvExit   = "exit"
)

// Msg is every message, requests, replies and events alike; the fields an
// Op does not use are left out.
type Msg struct {
	ID    uint64 `json:"id,omitempty"`
	Op    string `json:"op,omitempty"`
	Reply bool   `json:"re,omitempty"`
	Err   string `json:"err,omitempty"`

	Proc   uint64 `json:"proc,omitempty"`
	Stream int    `json:"stream,omitempty"` // 0 stdout (the terminal), 1 stderr
	Seq    uint64 `json:"seq,omitempty"`
	Data   []byte `json:"data,omitempty"`

	Hello   *Hello          `json:"hello,omitempty"`
	Start   *Start          `json:"start,omitempty"`
	State   *State          `json:"state,omitempty"`
	Status  *Status         `json:"status,omitempty"`
	Sig     int             `json:"sig,omitempty"`
	Key     string          `json:"key,omitempty"` // the tree's tag: KEY=Value
	Value   string          `json:"value,omitempty"`
	Pgrp    int             `json:"pgrp,omitempty"`
	Cols    uint16          `json:"cols,omitempty"`
	Rows    uint16          `json:"rows,omitempty"`
	Bool    bool            `json:"bool,omitempty"`
	Int     int             `json:"int,omitempty"`
	Uint    uint64          `json:"uint,omitempty"`
	Ints    []int           `json:"ints,omitempty"`
	Strings []string        `json:"strings,omitempty"`
	Raw     json.RawMessage `json:"raw,omitempty"`  // prompt's Input, Task or Probe
	Path    string          `json:"path,omitempty"` // a started process's input, as its kernel shows it
}

// Hello opens a connection: the server's, and the executor's answer.
type Hello struct {
	Version int `json:"version"`
	// Resume, from the server: where each process's streams stood.
	Resume []Resume `json:"resume,omitempty"`
	// From the executor: its system, and the processes of Resume it no
	// longer has.
	OS   string   `json:"os,omitempty"`
	Arch string   `json:"arch,omitempty"`
	Lost []uint64 `json:"lost,omitempty"`
}

// Resume is one process's place in its streams.
type Resume struct {
	Proc uint64    `json:"proc"`
	Seq  [2]uint64 `json:"seq"`
}

// Start is a command to start: what pty.Options says, with the program
// resolved on the executor's host when it is not an absolute path found
// there, and Env laid over the executor's own environment.
type Start struct {
	Path string   `json:"path"`
	Args []string `json:"args"`
	Dir  string   `json:"dir,omitempty"`
	Env  []string `json:"env,omitempty"`
	TTY  bool     `json:"tty,omitempty"`
	Cols uint16   `json:"cols,omitempty"`
	Rows uint16   `json:"rows,omitempty"`
}

// A start is answered with Proc (the executor's handle), Int (the pid),
// Bool (under a terminal) and Path (the input as its kernel shows it).

// State is the terminal's state and what waits in it.
type State struct {
	Cols, Rows         uint16
	Fg                 int
	FgErr              string `json:",omitempty"`
	Echo, Canonical    bool
	ModesErr           string `json:",omitempty"`
	InputPath          string
	Pending, Typeahead bool
	// Ends is where each output stream ends in the executor's buffer:
	// output past what the server received is on its way.
	Ends [2]uint64
}

// Status is a process's exit status.
type Status struct {
	Code   int `json:"code"`
	Signal int `json:"signal,omitempty"`
}

// ErrFrame is a line longer than MaxFrame.
var ErrFrame = errors.New("execproto: frame too long")

// Conn is one end of a connection.
type Conn struct {
	r  *bufio.Reader
	c  io.Closer
	mu sync.Mutex
	w  io.Writer
}

// NewConn speaks the protocol over r and w; Close closes c.
func NewConn(r io.Reader, w io.Writer, c io.Closer) *Conn {
	return &Conn{r: bufio.NewReaderSize(r, 64<<10), w: w, c: c}
}

// Send writes one message.
func (c *Conn) Send(m *Msg) error {
	b, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("encoding %s: %w", m.Op, err)
	}
	b = append(b, '\n')
	c.mu.Lock()
	defer c.mu.Unlock()
	_, err = c.w.Write(b)
	return err
}

// Recv reads the next message. A line that is too long or not a message
// is an error: the connection cannot be trusted past it.
func (c *Conn) Recv() (*Msg, error) {
	var line []byte
	for {
		part, err := c.r.ReadSlice('\n')
		if len(line)+len(part) > MaxFrame {
			return nil, ErrFrame
		}
		line = append(line, part...)
		if err == nil {
			break
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			if len(bytes.TrimSpace(line)) > 0 && errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
	}
	m := new(Msg)
	if err := json.Unmarshal(line, m); err != nil {
		return nil, fmt.Errorf("execproto: reading a message: %w", err)
	}
	return m, nil
}

// Close closes the connection; a blocked Recv returns.
func (c *Conn) Close() error { return c.c.Close() }
