package tools

import (
	"context"
	"encoding/base64"
	"fmt"
	"github.com/yieldshell/yieldshell/internal/wire"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yieldshell/yieldshell/internal/mcptool"
	"github.com/yieldshell/yieldshell/internal/session"
)

func readTool() *mcp.Tool {
	return &mcp.Tool{
		Name:  "read",
		Title: "Read a process's output",
		Description: `Read the output of a process started by exec, running or finished, without waiting.

Example: {"process_id": "proc_1a2b3c4d5e6f", "since_seq": 120}

view: "screen" returns the terminal as a person would see it now (rows of text, cursor, size) instead of the log; answers include it anyway while a full-screen program (vim, less, top) runs, and the log then holds one line saying so.

Binary output (NUL bytes, or mostly invalid UTF-8) is never shown as text: answers say binary: true, how many bytes (bytes) and where (binary_parts), and keep the text around it. The log keeps it exactly as the program wrote it (in PTY mode as the terminal passed it on: \n becomes \r\n unless the program set the terminal raw); encoding: "base64" returns the exact stored bytes from since_seq on, text and binary, base64-encoded.

Positions count bytes of the process's output log. Pass the previous answer's next_seq as since_seq to get only what came after; an answer cut by max_output_bytes (capped: true) ends where next_seq points, so reading on from there loses nothing still retained. Without since_seq the newest output is returned. truncated is true when output was cut or evicted (the oldest output is dropped past YIELDSHELL_MAX_BUFFER_BYTES). streams picks stdout, stderr or both; in PTY mode everything is in stdout.`,
		Annotations: mcptool.Annotations("Read a process's output", mcptool.Reads),
	}
}

func parseStreams(s string) (session.Stream, bool) {
	switch s {
	case "", "both":
		return session.Both, true
	case "stdout":
		return session.Stdout, true
	case "stderr":
		return session.Stderr, true
	}
	return 0, false
}

func (h *handlers) read(ctx context.Context, req *mcp.CallToolRequest, in wire.ReadIn) (*mcp.CallToolResult, wire.OutputOut, error) {
	p, err := h.m.Get(in.ProcessID)
	if err != nil {
		return mcptool.Error(wire.OutputOut{ProcessID: in.ProcessID, Error: unknownProcess(in.ProcessID)})
	}
	streams, ok := parseStreams(in.Streams)
	if !ok {
		return mcptool.Error(wire.OutputOut{ProcessID: in.ProcessID,
			Error: fmt.Sprintf("Invalid streams: %q; use \"both\", \"stdout\" or \"stderr\"", in.Streams)})
	}
	switch in.Encoding {
	case "", "text":
	case "base64":
		if in.View != "" && in.View != "log" {
			return mcptool.Error(wire.OutputOut{ProcessID: in.ProcessID, Error: "encoding \"base64\" reads the log: leave view out"})
		}
		return mcptool.Linked(mcptool.LogLink(p.ID, p.Name)), h.readBase64(p, in, streams), nil
	default:
		return mcptool.Error(wire.OutputOut{ProcessID: in.ProcessID,
			Error: fmt.Sprintf("Invalid encoding: %q; use \"text\" or \"base64\"", in.Encoding)})
	}
	switch in.View {
	case "", "log":
		out, _ := h.readLog(p, in.SinceSeq, in.MaxOutputBytes, streams, false)
		return mcptool.Linked(mcptool.LogLink(p.ID, p.Name)), out, nil
	case "screen":
		out, ok := h.readScreen(p, in.SinceSeq, streams)
		if !ok {
			return mcptool.Error(wire.OutputOut{ProcessID: p.ID, Error: errNoScreen})
		}
		return mcptool.Linked(mcptool.LogLink(p.ID, p.Name)), out, nil
	}
	return mcptool.Error(wire.OutputOut{ProcessID: in.ProcessID,
		Error: fmt.Sprintf("Invalid view: %q; use \"log\" or \"screen\"", in.View)})
}

// readBase64 answers read with encoding "base64": the stored bytes from
// since_seq (or the start) on, text and binary alike, so that binary
// output can be had exactly. The cap counts encoded bytes: at most 3/4 of
// it are read.
func (h *handlers) readBase64(p *session.Process, in wire.ReadIn, streams session.Stream) wire.OutputOut {
	since := int64(0)
	if in.SinceSeq != nil {
		since = *in.SinceSeq
	}
	q := session.Query{Since: &since, MaxBytes: max(h.outputCap(in.MaxOutputBytes)/4*3, 3), Streams: streams, Raw: true, Input: session.InputNow}
	s := p.Snapshot(q)
	out := h.output(p, s, streams)
	out.Encoding = "base64"
	out.Capped = s.Capped
	out.OmitFields = wire.OmitFields{}
	if binaryParts(&out.OmitFields, s.Binary); !out.Binary {
		out.Bytes = nil
	}
	if streams&session.Stdout != 0 {
		out.Stdout = new(base64.StdEncoding.EncodeToString(s.Stdout))
	}
	if streams&session.Stderr != 0 {
		out.Stderr = new(base64.StdEncoding.EncodeToString(s.Stderr))
	}
	return out
}

const errNoScreen = "view \"screen\" needs a process started with tty: true"

// readLog is read's answer about p's log, and the snapshot it was made
// from; with keepRaw, that has the stored bytes of binary output too
// (session.Query.KeepRaw).
func (h *handlers) readLog(p *session.Process, since *int64, maxBytes *int, streams session.Stream, keepRaw bool) (wire.OutputOut, session.Snapshot) {
	q := h.answerQuery(since, maxBytes, streams)
	q.Input, q.KeepRaw = session.InputNow, keepRaw
	s := p.Snapshot(q)
	return h.output(p, s, streams), s
}

// readScreen is read's answer with view "screen"; false for a process
// without a terminal. The screen instead of the log: nothing of the log is
// consumed, so next_seq stays where the reader is.
func (h *handlers) readScreen(p *session.Process, since *int64, streams session.Stream) (wire.OutputOut, bool) {
	q := session.Query{Since: since, MaxBytes: 0, Streams: streams, Screen: true, Input: session.InputNow}
	out := h.output(p, p.Snapshot(q), streams)
	out.Stdout, out.Stderr, out.Capped, out.Truncated = nil, nil, false, out.Evicted
	if since != nil {
		out.NextSeq = since
	}
	return out, out.Screen != nil
}

// output builds a read or wait answer from s, one snapshot of p; streams
// are those asked for.
// answer is output of a snapshot of p taken now for q, with the input
// state of the same instant.
func (h *handlers) answer(p *session.Process, q session.Query) wire.OutputOut {
	q.Input = session.InputNow
	return h.output(p, p.Snapshot(q), q.Streams)
}

func (h *handlers) output(p *session.Process, s session.Snapshot, streams session.Stream) wire.OutputOut {
	out := wire.OutputOut{
		ProcessID: p.ID,
		Status:    string(s.Status),
		NextSeq:   new(s.NextSeq),
		StartSeq:  new(s.StartSeq),
		Truncated: s.Evicted || s.Capped,
		Evicted:   s.Evicted,
		Capped:    s.Capped && s.Omitted == nil, // a head-and-tail cut says omitted instead
		EndedBy:   string(s.EndedBy),
		Notes:     append(endNotes(s.Info), replyNotes(s.Info)...),
		Screen:    screenOut(s.Output),
		Name:      p.Name,
	}
	out.LongFields = h.long(p, s)
	out.ExitCode, out.Signal = exitFields(s.Info)
	if s.Status == session.Running {
		out.InputOut = inputOut(s.Input)
		out.CommandOut = commandOut(s.CommandExits)
	}
	stdout, stderr, of := answerText(s.Output)
	out.OmitFields = of
	if streams&session.Stdout != 0 {
		out.Stdout = new(stdout)
	}
	if streams&session.Stderr != 0 {
		out.Stderr = new(stderr)
	}
	return out
}
