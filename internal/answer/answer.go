// Package answer builds what read, wait, exec and the MCP resources say
// about a process from one session snapshot: its output as text (binary
// and omitted stretches described), screen, exit, input wait and the
// long-running fields. The tool handlers (package tools) and the
// resources (package resources) both answer through it, so a
// resources/read and a read call agree field for field, redaction,
// omissions and binary output included.
package answer

import (
	"fmt"
	"strings"

	"github.com/yieldshell/yieldshell/internal/mcptool"
	"github.com/yieldshell/yieldshell/internal/outlog"
	"github.com/yieldshell/yieldshell/internal/policy"
	"github.com/yieldshell/yieldshell/internal/session"
	"github.com/yieldshell/yieldshell/internal/wire"
)

// Reader answers about the processes of one Manager under one
// configuration (the output cap, the log directory).
type Reader struct {
	m   *session.Manager
	cfg *policy.Config
}

// New returns the Reader of a server whose tools answer under cfg.
func New(m *session.Manager, cfg *policy.Config) *Reader {
	return &Reader{m: m, cfg: cfg}
}

// ReadLog is read's answer about p's log, and the snapshot it was made
// from; with keepRaw, that has the stored bytes of binary output too
// (session.Query.KeepRaw).
func (r *Reader) ReadLog(p *session.Process, since *int64, maxBytes *int, streams session.Stream, keepRaw bool) (wire.OutputOut, session.Snapshot) {
	q := r.Query(since, maxBytes, streams)
	q.Input, q.KeepRaw = session.InputNow, keepRaw
	s := p.Snapshot(q)
	return r.Output(p, s, streams), s
}

// ReadScreen is read's answer with view "screen"; false for a process
// without a terminal. The screen instead of the log: nothing of the log is
// consumed, so next_seq stays where the reader is.
func (r *Reader) ReadScreen(p *session.Process, since *int64, streams session.Stream) (wire.OutputOut, bool) {
	q := session.Query{Since: since, MaxBytes: 0, Streams: streams, Screen: true, Input: session.InputNow}
	out := r.Output(p, p.Snapshot(q), streams)
	out.Stdout, out.Stderr, out.Capped, out.Truncated = nil, nil, false, out.Evicted
	if since != nil {
		out.NextSeq = since
	}
	return out, out.Screen != nil
}

// Answer is Output of a snapshot of p taken now for q, with the input
// state of the same instant.
func (r *Reader) Answer(p *session.Process, q session.Query) wire.OutputOut {
	q.Input = session.InputNow
	return r.Output(p, p.Snapshot(q), q.Streams)
}

// Output builds a read or wait answer from s, one snapshot of p; streams
// are those asked for.
func (r *Reader) Output(p *session.Process, s session.Snapshot, streams session.Stream) wire.OutputOut {
	out := wire.OutputOut{
		ProcessID: p.ID,
		Status:    string(s.Status),
		NextSeq:   new(s.NextSeq),
		StartSeq:  new(s.StartSeq),
		Truncated: s.Evicted || s.Capped,
		Evicted:   s.Evicted,
		Capped:    s.Capped && s.Omitted == nil, // a head-and-tail cut says omitted instead
		EndedBy:   string(s.EndedBy),
		Notes:     append(EndNotes(s.Info), ReplyNotes(s.Info)...),
		Screen:    Screen(s.Output),
		Name:      p.Name,
	}
	out.LongFields = r.Long(p, s)
	out.ExitCode, out.Signal = ExitFields(s.Info)
	if s.Status == session.Running {
		out.InputOut = Input(s.Input)
		out.CommandOut = Commands(s.CommandExits)
	}
	stdout, stderr, of := Text(s.Output)
	out.OmitFields = of
	if streams&session.Stdout != 0 {
		out.Stdout = new(stdout)
	}
	if streams&session.Stderr != 0 {
		out.Stderr = new(stderr)
	}
	return out
}

// ErrNoScreen is read's error for view "screen" without a terminal.
const ErrNoScreen = "view \"screen\" needs a process started with tty: true"

// Query is the query behind an answer's output: since (nil: the
// newest output), within max_output_bytes. Output over the cap is cut into
// its head and its tail with what is left out between them said
// (omitted), except when since and max_output_bytes are both given: that
// is paging, as in mcp-yieldshell 0.4.0, where the answer is the head only
// and next_seq is the first byte not returned.
func (r *Reader) Query(since *int64, maxBytes *int, streams session.Stream) session.Query {
	return session.Query{Since: since, MaxBytes: r.Cap(maxBytes), Streams: streams,
		HeadTail: since == nil || maxBytes == nil}
}

// maxBinaryParts is how many binary parts an answer lists.
const maxBinaryParts = 16

// Text turns an answer's output into its text fields: binary output
// is not shown (binary, bytes, binary_parts), and omitted describes a
// head-and-tail cut. Binary output is judged once, by the session's
// reader as it stores the output (outlog.Judge, which also judges output
// written a few bytes at a time with what came before it): the log keeps
// it apart from text, so the answer shows the text around it and lists
// its parts.
func Text(o session.Output) (stdout, stderr string, f wire.OmitFields) {
	if om := o.Omitted; om != nil && om.Bytes > 0 {
		f.Omitted = &wire.Omitted{FromSeq: om.From, ToSeq: om.To, Bytes: om.Bytes, Lines: om.Lines, Evicted: om.Evicted}
	}
	BinaryParts(&f, o.Binary)
	if len(o.Binary) == 0 {
		f.Bytes = nil
	}
	return ValidText(o.Stdout), ValidText(o.Stderr), f
}

// BinaryParts sets binary, bytes (always) and binary_parts from the
// binary parts of an answer's output.
func BinaryParts(f *wire.OmitFields, parts []outlog.Part) {
	var n int64
	f.BinaryParts = nil
	for i, p := range parts {
		n += p.To - p.From
		if i < maxBinaryParts {
			f.BinaryParts = append(f.BinaryParts, wire.BinaryPart{FromSeq: p.From, ToSeq: p.To, Stream: streamName(p.Stream)})
		}
	}
	f.Binary, f.Bytes = len(parts) > 0, new(n)
}

func streamName(s outlog.Stream) string {
	if s == outlog.Stderr {
		return "stderr"
	}
	return "stdout"
}

// Cap applies the server cap to a requested max_output_bytes: absent or
// not positive means the cap.
func (r *Reader) Cap(req *int) int {
	c := r.cfg.Limits.OutputBytes
	if req != nil && *req > 0 && *req < c {
		return *req
	}
	return c
}

// ValidText turns log bytes into a JSON-safe string: output that is not valid
// UTF-8 (pipe mode passes bytes through) gets U+FFFD.
func ValidText(b []byte) string {
	return strings.ToValidUTF8(string(b), "\uFFFD")
}

// Screen is the rendered terminal of an answer's output, or nil.
func Screen(o session.Output) *wire.ScreenOut {
	s := o.Screen
	if s == nil {
		return nil
	}
	lines := s.Lines
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return &wire.ScreenOut{
		Lines: append([]string{}, lines...), CursorRow: s.CursorY, CursorCol: s.CursorX,
		Cols: s.Cols, Rows: s.Rows, AltScreen: s.AltScreen, CursorVisible: s.CursorVisible, Degraded: s.Degraded,
	}
}

// Commands reports the commands an integrated shell finished since the
// last write (Snapshot.CommandExits).
func Commands(codes []int) wire.CommandOut {
	if len(codes) == 0 {
		return wire.CommandOut{}
	}
	out := wire.CommandOut{CommandExitCode: new(codes[len(codes)-1])}
	if len(codes) > 1 {
		out.CommandExitCodes = codes
	}
	return out
}

// Input describes st; only answers about a running process carry it.
func Input(st session.InputState) wire.InputOut {
	g := st.Grammar
	return wire.InputOut{WaitingForInput: new(st.Waiting), InputKind: string(st.Kind), InputSignal: string(st.Signal), InputConfidence: string(st.Confidence), Prompt: st.Prompt,
		Asked: mcptool.NewAsked(g.Choices, g.Default, g.Range, g.Items, g.Selected, g.Checked, st.Ready, st.Ports)}
}

// ExitFields are the exit_code and signal of a summary, null while running.
func ExitFields(in session.Info) (*int, *string) {
	var sig *string
	if in.Signal != "" {
		sig = new(in.Signal)
	}
	return in.ExitCode, sig
}

// EndNotes explains the end of a process when something about it needs
// saying.
func EndNotes(in session.Info) []string {
	if in.OutputLeftOpen {
		return []string{"the command exited but a process it started still holds its output open; later output from it is in read"}
	}
	return nil
}

// ReplyNotes says when the terminal dropped replies to the program's
// queries: it is then running on guesses (cursor position, colours).
func ReplyNotes(in session.Info) []string {
	if in.DroppedReplies == 0 {
		return nil
	}
	return []string{fmt.Sprintf("%d replies to terminal queries were dropped: the program that sent them (a cursor position query, say) did not read them in time, or sent them faster than it read its input", in.DroppedReplies)}
}

// Long fills the long-running fields of an answer about p from its
// snapshot s.
func (r *Reader) Long(p *session.Process, s session.Snapshot) wire.LongFields {
	return wire.LongFields{URLs: s.URLs, LogPath: r.m.LogPath(p), TailCommand: r.m.TailCommand(p), Sandbox: SandboxOut(p.Sandbox())}
}

// SandboxHealth says what the server's sandbox enforces, for ps and
// health_check.
func SandboxHealth(cfg *policy.Config, m *session.Manager) wire.SandboxHealth {
	s := m.SandboxSupport()
	network, netGaps := cfg.Sandbox.Network, m.SandboxNetworkGaps()
	if len(netGaps) > 0 {
		network = policy.NetworkOff // best-effort, where a host list cannot be enforced
	}
	return wire.SandboxHealth{Mode: cfg.Sandbox.Mode, Network: network, LandlockABI: s.LandlockABI,
		Seccomp: s.Seccomp, NotEnforced: append(s.Gaps(), netGaps...), AllowedWrites: m.AllowedWrites()}
}

// SandboxOut is a process's sandbox as answers show it; nil unconfined.
func SandboxOut(r *session.SandboxReport) *wire.SandboxOut {
	if r == nil {
		return nil
	}
	out := &wire.SandboxOut{Mode: r.Mode, Network: r.Network, NotEnforced: r.Gaps, Denied: []wire.SandboxDenial{}}
	for _, d := range r.Denied {
		out.Denied = append(out.Denied, wire.SandboxDenial{Op: d.Op, Path: d.Path, Address: d.Address, Host: d.Host, Port: d.Port,
			Reason: d.Reason, Count: d.Count})
	}
	return out
}

// Log is read's answer about p's log after since (nil: the newest output),
// and the snapshot it was made from, whose Stdout and Stderr are, where
// the answer says binary, the exact stored bytes of the same slice of the
// log (binary output included; the answer's text leaves it out), for a
// blob.
func (r *Reader) Log(p *session.Process, since *int64) (wire.OutputOut, session.Snapshot) {
	out, s := r.ReadLog(p, since, nil, session.Both, true)
	if len(s.Binary) > 0 {
		s.Stdout, s.Stderr = s.RawStdout, s.RawStderr
	}
	return out, s
}

// Screen is read's answer with view "screen"; false for a process without
// a terminal.
func (r *Reader) Screen(p *session.Process, since *int64) (wire.OutputOut, bool) {
	return r.ReadScreen(p, since, session.Both)
}
