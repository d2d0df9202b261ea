// Package linerpc is the newline-delimited JSON-RPC transport the server
// speaks on stdio and on the persistent server's socket, made safe against
// what a client may send: the SDK ends the whole connection on the first
// line it cannot decode, so every line is checked here first. A line that
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
// A Transport's connection is used by one reading goroutine (the SDK's)
// and any number of writers.
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

// Connect implements [mcp.Transport].
func (t *Transport) Connect(ctx context.Context) (mcp.Connection, error) {
	w := &lockedWriter{w: t.Writer}
	f := &filter{
		src: bufio.NewReaderSize(t.Reader, 64<<10),
		c:   t.Reader,
		w:   w,
		max: t.MaxFrame,
	}
	if f.max <= 0 {
		f.max = DefaultMaxFrame
	}
	// The filter bounds every frame, so the SDK need not.
	return (&mcp.IOTransport{Reader: f, Writer: w, MaxLineLength: -1}).Connect(ctx)
}

// lockedWriter keeps the SDK's messages and the filter's refusals whole:
// each is one Write.
type lockedWriter struct {
	mu sync.Mutex
	w  io.WriteCloser
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	out := p
	if bytes.Contains(p, codeZero) {
		out = validCode(p)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, err := l.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// codeZero is how an error response without a code starts on the wire.
var codeZero = []byte(`"error":{"code":0,`)

// beforeInitialize is the SDK's refusal of a call made before initialize.
const beforeInitialize = "is invalid during session initialization"

// validCode gives an error response with code 0 a code JSON-RPC defines;
// any other line is returned as it is.
func validCode(line []byte) []byte {
	msg, err := jsonrpc.DecodeMessage(bytes.TrimSpace(line))
	if err != nil {
		return line
	}
	resp, ok := msg.(*jsonrpc.Response)
	var werr *jsonrpc.Error
	if !ok || !errors.As(resp.Error, &werr) || werr.Code != 0 {
		return line
	}
	fixed := &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: werr.Message, Data: werr.Data}
	if strings.Contains(werr.Message, beforeInitialize) {
		fixed.Code = jsonrpc.CodeInvalidRequest
		fixed.Message = "invalid request: " + werr.Message + ": send initialize first"
	}
	resp.Error = fixed
	b, err := jsonrpc.EncodeMessage(resp)
	if err != nil {
		return line
	}
	return append(b, '\n')
}

func (l *lockedWriter) Close() error { return l.w.Close() }

// filter hands the SDK only the lines it can decode, and answers the rest.
type filter struct {
	src     *bufio.Reader
	c       io.Closer
	w       io.Writer
	max     int
	line    []byte // the line being read or handed over
	pending []byte // what of line the SDK has not read yet
	// batches says whether the client may send JSON-RPC batches: only an
	// initialize for a protocol version before 2025-06-18 allows them
	// (later versions dropped them, and the SDK ends the connection on one).
	batches bool
}

// errTooLarge marks a line longer than max, already skipped.
var errTooLarge = errors.New("frame too large")

func (f *filter) Read(p []byte) (int, error) {
	for len(f.pending) == 0 {
		line, err := f.next()
		if errors.Is(err, errTooLarge) {
			f.refuse(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("invalid request: a message longer than %d bytes was skipped", f.max))
			continue
		}
		if err != nil {
			return 0, err
		}
		f.pending = f.check(line)
	}
	n := copy(p, f.pending)
	f.pending = f.pending[n:]
	return n, nil
}

func (f *filter) Close() error { return f.c.Close() }

// next reads one line, with its newline; a last line without one gets
// one. A line longer than max is read to its end and dropped.
func (f *filter) next() ([]byte, error) {
	if cap(f.line) > 1<<20 {
		f.line = nil // let a large frame's memory go
	}
	f.line = f.line[:0]
	tooLarge := false
	for {
		chunk, err := f.src.ReadSlice('\n')
		if !tooLarge && len(f.line)+len(chunk) > f.max+1 { // +1: the newline
			tooLarge, f.line = true, f.line[:0]
		}
		if !tooLarge {
			f.line = append(f.line, chunk...)
		}
		switch {
		case err == nil && tooLarge:
			return nil, errTooLarge
		case err == nil:
			return f.line, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && tooLarge:
			return nil, errTooLarge
		case errors.Is(err, io.EOF) && len(f.line) > 0:
			return append(f.line, '\n'), nil
		}
		return nil, err
	}
}

// check returns the message of line if the SDK can take it; otherwise it
// answers the line and returns nil.
func (f *filter) check(line []byte) []byte {
	body := trimSpace(line)
	if len(body) == 0 {
		return nil // blank lines mean nothing
	}
	if !json.Valid(body) {
		f.refuse(nil, jsonrpc.CodeParseError, "parse error: the line is not JSON")
		return nil
	}
	switch body[0] {
	case '{':
		msg, err := jsonrpc.DecodeMessage(body)
		if err != nil {
			f.refuse(idOf(body), jsonrpc.CodeInvalidRequest, "invalid request: "+err.Error())
			return nil
		}
		if req, ok := msg.(*jsonrpc.Request); ok && req.Method == "initialize" {
			f.batches = allowsBatches(req.Params)
		}
	case '[':
		if reason := f.checkBatch(body); reason != "" {
			f.refuse(nil, jsonrpc.CodeInvalidRequest, "invalid request: "+reason)
			return nil
		}
	default:
		f.refuse(nil, jsonrpc.CodeInvalidRequest, "invalid request: a message is a JSON object")
		return nil
	}
	// The value alone and a newline: the SDK refuses anything after a value
	// on its line, even spaces.
	return append(body, '\n')
}

// checkBatch says what is wrong with a batch, or "".
func (f *filter) checkBatch(body []byte) string {
	var msgs []json.RawMessage
	if err := json.Unmarshal(body, &msgs); err != nil {
		return err.Error()
	}
	if len(msgs) == 0 {
		return "an empty batch"
	}
	if !f.batches {
		return "batches are not supported at this protocol version; send one message per line"
	}
	for _, m := range msgs {
		if _, err := jsonrpc.DecodeMessage(m); err != nil {
			return "in a batch: " + err.Error()
		}
	}
	return ""
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
func (f *filter) refuse(id json.RawMessage, code int, message string) {
	if id == nil {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc.Error   `json:"error"`
	}{"2.0", id, jsonrpc.Error{Code: int64(code), Message: message}})
	_, _ = f.w.Write(append(b, '\n'))
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
