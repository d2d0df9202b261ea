// Package linerpc is the newline-delimited JSON-RPC transport the server
// speaks on stdio and on the persistent server's socket, made safe against
// what a client may send: the SDK's own stdio transport ends the whole
// connection on the first line it cannot decode, so this one checks each
// line as it decodes it (once: the SDK gets the message). A line that
// is not JSON is answered with a parse error (-32700), one that is not a
// JSON-RPC message with an invalid-request error (-32600, with its id when
// it has one), and both are skipped; a frame longer than [DefaultMaxFrame]
// is refused the same way and skipped without being kept in memory. Only
// well-formed messages reach the SDK.
//
// On the way out, an error response the SDK made from a plain Go error
// carries code 0, which JSON-RPC does not define: it leaves with
// invalid-request (-32600) when the SDK refused a call made before
// initialize, and internal-error (-32603) otherwise.
//
// JSON-RPC batches (allowed before protocol version 2025-06-18) are handed
// over message by message and answered in one array once every call in
// them is answered. A Transport's connection is used by one reading
// goroutine (the SDK's) and any number of writers.
package linerpc

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultMaxFrame is the longest line accepted: the SDK's own limit.
const DefaultMaxFrame = mcp.DefaultMaxLineLength

// Transport is an [mcp.Transport] over a reader and a writer of
// newline-delimited JSON-RPC.
type Transport struct {
	Reader io.ReadCloser
	Writer io.WriteCloser
	// MaxFrame is the longest line accepted, in bytes (0: DefaultMaxFrame).
	MaxFrame int
}

// Connect implements [mcp.Transport]. The connection decodes each line
// once, in the SDK's reading goroutine, where the reader lets Close end a
// blocked read (see [interruptible]); otherwise a goroutine reads ahead,
// as the SDK's own stdio transport does.
func (t *Transport) Connect(ctx context.Context) (mcp.Connection, error) {
	c := &conn{
		w:       &lockedWriter{w: t.Writer},
		rc:      t.Reader,
		max:     t.MaxFrame,
		closed:  make(chan struct{}),
		batches: map[jsonrpc.ID]*batch{},
	}
	if c.max <= 0 {
		c.max = DefaultMaxFrame
	}
	src, copied, direct := interruptible(t.Reader)
	c.src, c.extra = bufio.NewReaderSize(src, 64<<10), copied
	if !direct {
		c.lines = make(chan lineOrErr)
		go c.readAhead()
	}
	return c, nil
}

// conn is the [mcp.Connection]: it hands the SDK only the messages it can
// take, answers the rest, and keeps JSON-RPC batches (the protocol before
// 2025-06-18 allows them) together on the way out.
type conn struct {
	src   *bufio.Reader
	rc    io.Closer // the reader
	extra io.Closer // a pollable copy of the reader's descriptor, if made
	w     *lockedWriter
	max   int
	line  []byte // the line being read; only Read (or readAhead) uses it
	// lines carries readAhead's lines, when a goroutine reads ahead.
	lines chan lineOrErr
	// queue holds the messages of a batch not handed over yet.
	queue []jsonrpc.Message
	// oldProtocol says whether the client may send batches: only an
	// initialize for a protocol version before 2025-06-18 allows them
	// (later versions dropped them).
	oldProtocol bool

	mu      sync.Mutex
	batches map[jsonrpc.ID]*batch // by the id of each call still unanswered

	closeOnce sync.Once
	closed    chan struct{}
	closeErr  error
}

// batch is a batch's calls, answered together once all are.
type batch struct {
	unanswered int
	answers    []*jsonrpc.Response
	index      map[jsonrpc.ID]int
}

type lineOrErr struct {
	line []byte
	err  error
}

// errTooLarge marks a line longer than max, already skipped.
var errTooLarge = errors.New("frame too large")

// Read implements [mcp.Connection].
func (c *conn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for len(c.queue) == 0 {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		line, err := c.nextLine(ctx)
		if errors.Is(err, errTooLarge) {
			c.refuse(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("invalid request: a message longer than %d bytes was skipped", c.max))
			continue
		}
		if err != nil {
			select {
			case <-c.closed:
				return nil, io.EOF // what a closed reader says is not news
			default:
				return nil, err
			}
		}
		c.queue = c.check(line)
	}
	msg := c.queue[0]
	c.queue = c.queue[1:]
	return msg, nil
}

// nextLine is the next line, read here or by readAhead.
func (c *conn) nextLine(ctx context.Context) ([]byte, error) {
	if c.lines == nil {
		return c.next()
	}
	select {
	case l := <-c.lines:
		return l.line, l.err
	case <-c.closed:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// readAhead reads lines for Read from a reader whose blocked read Close
// cannot end (a terminal). It ends at the first error, or once the
// connection is closed and the read returns; a read that never returns
// keeps it, as it keeps the SDK's.
func (c *conn) readAhead() {
	for {
		line, err := c.next()
		if line != nil {
			line = bytes.Clone(line) // next reuses its buffer
		}
		select {
		case c.lines <- lineOrErr{line, err}:
		case <-c.closed:
			return
		}
		if err != nil && !errors.Is(err, errTooLarge) {
			return
		}
	}
}

// Write implements [mcp.Connection].
func (c *conn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if resp, ok := msg.(*jsonrpc.Response); ok {
		resp = validCode(resp)
		msg = resp
		if answers, inBatch := c.answered(resp); inBatch {
			if answers == nil {
				return nil // the batch waits for its other answers
			}
			return c.writeBatch(answers)
		}
	}
	b, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("marshaling message: %w", err)
	}
	_, err = c.w.Write(append(b, '\n'))
	return err
}

// answered records resp if it answers a call of a batch, and returns the
// batch's answers once resp was its last.
func (c *conn) answered(resp *jsonrpc.Response) (answers []*jsonrpc.Response, inBatch bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	b := c.batches[resp.ID]
	if b == nil {
		return nil, false
	}
	delete(c.batches, resp.ID)
	b.answers[b.index[resp.ID]] = resp
	if b.unanswered--; b.unanswered > 0 {
		return nil, true
	}
	return b.answers, true
}

func (c *conn) writeBatch(answers []*jsonrpc.Response) error {
	raws := make([]json.RawMessage, len(answers))
	for i, a := range answers {
		b, err := jsonrpc.EncodeMessage(a)
		if err != nil {
			return fmt.Errorf("marshaling a batch's answer: %w", err)
		}
		raws[i] = b
	}
	b, err := json.Marshal(raws)
	if err != nil {
		return err
	}
	_, err = c.w.Write(append(b, '\n'))
	return err
}

// Close implements [mcp.Connection]: it closes the reader (which ends a
// blocked Read) and the writer.
func (c *conn) Close() error {
	c.closeOnce.Do(func() {
		close(c.closed)
		var extraErr error
		if c.extra != nil {
			extraErr = c.extra.Close()
		}
		c.closeErr = errors.Join(extraErr, c.rc.Close(), c.w.Close())
	})
	return c.closeErr
}

// SessionID implements [mcp.Connection]: a stream has no session id.
func (c *conn) SessionID() string { return "" }

// lockedWriter keeps each message and refusal whole: each is one Write.
type lockedWriter struct {
	mu sync.Mutex
	w  io.WriteCloser
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) Close() error { return l.w.Close() }

// beforeInitialize is the SDK's refusal of a call made before initialize.
const beforeInitialize = "is invalid during session initialization"

// validCode gives an error response whose code would go out as 0 (the
// SDK's answer made from a plain Go error), which JSON-RPC does not
// define, a code it does; any other response is returned as it is.
func validCode(resp *jsonrpc.Response) *jsonrpc.Response {
	if resp.Error == nil {
		return resp
	}
	var werr *jsonrpc.Error
	if errors.As(resp.Error, &werr) && werr.Code != 0 {
		return resp
	}
	fixed := &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: resp.Error.Error()}
	if we, ok := resp.Error.(*jsonrpc.Error); ok {
		fixed.Data = we.Data
	}
	if strings.Contains(fixed.Message, beforeInitialize) {
		fixed.Code = jsonrpc.CodeInvalidRequest
		fixed.Message = "invalid request: " + fixed.Message + ": send initialize first"
	}
	out := *resp
	out.Error = fixed
	return &out
}

// next reads one line, with its newline; a last line without one gets
// one. A line longer than max is read to its end and dropped.
func (c *conn) next() ([]byte, error) {
	if cap(c.line) > 1<<20 {
		c.line = nil // let a large frame's memory go
	}
	c.line = c.line[:0]
	tooLarge := false
	for {
		chunk, err := c.src.ReadSlice('\n')
		if !tooLarge && len(c.line)+len(chunk) > c.max+1 { // +1: the newline
			tooLarge, c.line = true, c.line[:0]
		}
		if !tooLarge {
			c.line = append(c.line, chunk...)
		}
		switch {
		case err == nil && tooLarge:
			return nil, errTooLarge
		case err == nil:
			return c.line, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && tooLarge:
			return nil, errTooLarge
		case errors.Is(err, io.EOF) && len(c.line) > 0:
			return append(c.line, '\n'), nil
		}
		return nil, err
	}
}

// check returns the messages of line (one, or a batch's) if the SDK can
// take them; otherwise it answers the line and returns nil.
func (c *conn) check(line []byte) []jsonrpc.Message {
	body := trimSpace(line)
	if len(body) == 0 {
		return nil // blank lines mean nothing
	}
	if !json.Valid(body) {
		c.refuse(nil, jsonrpc.CodeParseError, "parse error: the line is not JSON")
		return nil
	}
	switch body[0] {
	case '{':
		msg, err := jsonrpc.DecodeMessage(body)
		if err != nil {
			c.refuse(idOf(body), jsonrpc.CodeInvalidRequest, "invalid request: "+err.Error())
			return nil
		}
		if req, ok := msg.(*jsonrpc.Request); ok && req.Method == "initialize" {
			c.oldProtocol = allowsBatches(req.Params)
		}
		return []jsonrpc.Message{msg}
	case '[':
		msgs, reason := c.checkBatch(body)
		if reason != "" {
			c.refuse(nil, jsonrpc.CodeInvalidRequest, "invalid request: "+reason)
			return nil
		}
		return msgs
	}
	c.refuse(nil, jsonrpc.CodeInvalidRequest, "invalid request: a message is a JSON object")
	return nil
}

// checkBatch decodes a batch and records its calls, whose answers go out
// together; or it says what is wrong with it.
func (c *conn) checkBatch(body []byte) ([]jsonrpc.Message, string) {
	var raws []json.RawMessage
	if err := json.Unmarshal(body, &raws); err != nil {
		return nil, err.Error()
	}
	if len(raws) == 0 {
		return nil, "an empty batch"
	}
	if !c.oldProtocol {
		return nil, "batches are not supported at this protocol version; send one message per line"
	}
	msgs := make([]jsonrpc.Message, len(raws))
	b := &batch{index: map[jsonrpc.ID]int{}}
	for i, raw := range raws {
		msg, err := jsonrpc.DecodeMessage(raw)
		if err != nil {
			return nil, "in a batch: " + err.Error()
		}
		msgs[i] = msg
		if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
			if _, dup := b.index[req.ID]; dup {
				return nil, fmt.Sprintf("in a batch: id %v is used twice", req.ID.Raw())
			}
			b.index[req.ID] = len(b.answers)
			b.answers = append(b.answers, nil)
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for id := range b.index {
		if c.batches[id] != nil {
			return nil, fmt.Sprintf("in a batch: id %v is still in use by an earlier batch", id.Raw())
		}
	}
	for id := range b.index {
		c.batches[id] = b
	}
	b.unanswered = len(b.answers)
	return msgs, ""
}

// allowsBatches reads an initialize request's protocol version.
func allowsBatches(params json.RawMessage) bool {
	var p struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	return json.Unmarshal(params, &p) == nil && p.ProtocolVersion != "" && p.ProtocolVersion < "2025-06-18"
}

// idOf returns the id of a JSON object, if it has one that is a string or
// a number.
func idOf(body []byte) json.RawMessage {
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(body, &m) != nil || len(m.ID) == 0 {
		return nil
	}
	switch m.ID[0] {
	case '"', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return m.ID
	}
	return nil
}

// refuse writes a JSON-RPC error response; a nil id is written as null.
func (c *conn) refuse(id json.RawMessage, code int, message string) {
	if id == nil {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc.Error   `json:"error"`
	}{"2.0", id, jsonrpc.Error{Code: int64(code), Message: message}})
	_, _ = c.w.Write(append(b, '\n'))
}

// trimSpace trims what JSON counts as white space, and nothing else: the
// SDK's decoder takes no other.
func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t' || b[0] == '\r' || b[0] == '\n') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t' || b[len(b)-1] == '\r' || b[len(b)-1] == '\n') {
		b = b[:len(b)-1]
	}
	return b
}
