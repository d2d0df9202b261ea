package tools

import (
	"context"
	"encoding/base64"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yieldshell/yieldshell/internal/answer"
	"github.com/yieldshell/yieldshell/internal/mcptool"
	"github.com/yieldshell/yieldshell/internal/session"
	"github.com/yieldshell/yieldshell/internal/wire"
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
			Error: `Invalid streams: use "both", "stdout" or "stderr"`})
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
			Error: `Invalid encoding: use "text" or "base64"`})
	}
	switch in.View {
	case "", "log":
		out, _ := h.ReadLog(p, in.SinceSeq, in.MaxOutputBytes, streams, false)
		return mcptool.Linked(mcptool.LogLink(p.ID, p.Name)), out, nil
	case "screen":
		out, ok := h.ReadScreen(p, in.SinceSeq, streams)
		if !ok {
			return mcptool.Error(wire.OutputOut{ProcessID: p.ID, Error: answer.ErrNoScreen})
		}
		return mcptool.Linked(mcptool.LogLink(p.ID, p.Name)), out, nil
	}
	return mcptool.Error(wire.OutputOut{ProcessID: in.ProcessID,
		Error: `Invalid view: use "log" or "screen"`})
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
	q := session.Query{Since: &since, MaxBytes: max(h.Cap(in.MaxOutputBytes)/4*3, 3), Streams: streams, Raw: true, Input: session.InputNow}
	s := p.Snapshot(q)
	out := h.Output(p, s, streams)
	out.Encoding = "base64"
	out.Capped = s.Capped
	out.OmitFields = wire.OmitFields{}
	if answer.BinaryParts(&out.OmitFields, s.Binary); !out.Binary {
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
