package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/yieldshell/yieldshell/internal/policy"
	"github.com/yieldshell/yieldshell/internal/session"
	"github.com/yieldshell/yieldshell/internal/toolhost"
)

// fuzzTools is indexed by the fuzzer's first argument.
var fuzzTools = []string{"exec", "read", "write", "wait", "stop", "ps", "cleanup"}

// Placeholders the harness replaces in a process_id, so that the corpus can
// name processes whose ids are random: the long-running process the harness
// keeps alive, and the last process exec started.
const (
	liveID = "@live"
	lastID = "@last"
)

// fuzzHarness is one in-memory server for a whole fuzzing run (one per
// worker process).
type fuzzHarness struct {
	m    *session.Manager
	cs   *mcp.ClientSession
	live string // id of a running "cat" under a PTY
	last string // id of the last process exec started
	n    int    // exec calls since the last cleanup
}

func newFuzzHarness(f *testing.F) *fuzzHarness {
	// Belt and braces: exec's command is overwritten below, and the server
	// refuses anything but the two commands the harness runs, and never
	// yields for long.
	env := map[string]string{
		"YIELDSHELL_ALLOW_COMMAND_REGEX": `^(true|cat)$`,
		"YIELDSHELL_MAX_YIELD_MS":        "50",
		"YIELDSHELL_DEFAULT_YIELD_MS":    "50",
		"YIELDSHELL_MAX_PROCESSES":       "20",
	}
	cfg, err := policy.Load(func(k string) string { return env[k] }, f.TempDir())
	if err != nil {
		f.Fatal(err)
	}
	m, err := newManager(cfg)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		m.Shutdown(ctx)
	})
	srv := mcp.NewServer(&mcp.Implementation{Name: "fuzz", Version: "0"}, nil)
	register(srv, toolhost.Host{Manager: m, Config: cfg, Version: "test"})
	return &fuzzHarness{m: m, cs: connect(f, srv)}
}

// liveProcess returns the id of a running process, starting one if the
// previous one was stopped, closed or cleaned up by the fuzzer.
func (h *fuzzHarness) liveProcess(t *testing.T) string {
	if h.live != "" {
		if p, err := h.m.Get(h.live); err == nil && !p.Ended() {
			return h.live
		}
	}
	p, err := h.m.Start(t.Context(), session.Spec{Command: "cat", SideEffects: []string{"NONE"}, TTY: true})
	if err != nil {
		t.Fatalf("starting the live process: %v", err)
	}
	h.live = p.ID
	return h.live
}

// capNumber replaces an integer argument above limit, or a null one (or a
// missing one if addMissing), by limit. Values of other types are kept: their decoding is what is
// being fuzzed, and they never reach a handler.
func capNumber(args map[string]any, key string, limit int64, addMissing bool) {
	for k, v := range args {
		if !strings.EqualFold(k, key) {
			continue
		}
		switch v := v.(type) {
		case nil:
			args[k] = json.Number(itoa(limit))
		case json.Number:
			if n, err := v.Int64(); err == nil && n > limit {
				args[k] = json.Number(itoa(limit))
			} else if err != nil {
				// A float or an integer beyond int64: a big float is
				// still an integer to JSON Schema and must not wait long.
				if f, err := v.Float64(); err != nil || f > float64(limit) {
					args[k] = json.Number(itoa(limit))
				}
			}
		}
	}
	if _, ok := lookupFold(args, key); !ok && addMissing {
		args[key] = json.Number(itoa(limit))
	}
}

func itoa(n int64) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// lookupFold finds key as encoding/json would: case-insensitively.
func lookupFold(args map[string]any, key string) (any, bool) {
	for k, v := range args {
		if strings.EqualFold(k, key) {
			return v, true
		}
	}
	return nil, false
}

// tame rewrites the fuzzer's arguments so that the call is harmless and
// fast. It reports whether the arguments had to be re-encoded; raw is sent
// untouched otherwise.
func (h *fuzzHarness) tame(t *testing.T, tool string, args map[string]any) bool {
	changed := false
	for k, v := range args {
		if strings.EqualFold(k, "process_id") {
			switch v {
			case liveID:
				args[k] = h.liveProcess(t)
				changed = true
			case lastID:
				args[k] = h.last
				changed = true
			}
		}
	}
	switch tool {
	case "exec":
		// Never run what the fuzzer wrote: every spelling encoding/json
		// would accept as "command" or "shell" is overwritten; values of
		// the wrong type are kept (they cannot decode into a string).
		for k, v := range args {
			switch {
			case strings.EqualFold(k, "command"):
				if _, ok := v.(string); ok || v == nil {
					args[k] = "true"
				}
			case strings.EqualFold(k, "shell"):
				if _, ok := v.(string); ok || v == nil {
					args[k] = "/bin/sh"
				}
			case strings.EqualFold(k, "env"):
				// Keep the shape, but only add variables of our own.
				if env, ok := v.(map[string]any); ok {
					safe := make(map[string]any, len(env))
					for ek, ev := range env {
						safe["YS_FUZZ_"+ek] = ev
					}
					args[k] = safe
				}
			}
		}
		capNumber(args, "timeout_ms", 2000, false)
		return true
	case "wait":
		capNumber(args, "timeout_ms", 20, true)
		return true
	case "stop":
		capNumber(args, "force_after_ms", 20, true)
		return true
	case "write":
		for k, v := range args {
			s, ok := v.(string)
			if !ok || !strings.EqualFold(k, "input") {
				continue
			}
			// Ctrl-S (XOFF) stops the terminal's output, then cat stops
			// reading and every later write waits its 10 s; a long line
			// without a newline could fill the line buffer likewise.
			if t := strings.ReplaceAll(s, "\x13", ""); len(t) != len(s) || len(t) > 512 {
				args[k] = t[:min(len(t), 512)]
				changed = true
			}
		}
	}
	return changed
}

// FuzzToolArguments throws arbitrary JSON objects at every tool. Each call
// must answer, as a tool error or with structured content that is valid
// JSON, never with a protocol error other than invalid params, and the
// server must still answer ps afterwards.
func FuzzToolArguments(f *testing.F) {
	h := newFuzzHarness(f)
	seeds := []struct {
		tool string
		args string
	}{
		{"exec", `{"command": "ls", "side_effects": ["NONE"]}`},
		{"exec", `{"command": "ls", "side_effects": ["NONE"], "yield_ms": 0}`},
		{"exec", `{"command": "ls", "side_effects": ["NONE"], "tty": false, "stdin": "hi\n", "close_stdin": true}`},
		{"exec", `{"command": "x", "side_effects": ["NONE"], "cols": 80, "rows": 24, "name": "build", "max_output_bytes": 10}`},
		{"exec", `{"command": "x", "side_effects": ["NONE"], "cols": 1, "rows": 100000}`},
		{"exec", `{"command": "x", "side_effects": ["NONE"], "cols": -5, "rows": 70000}`},
		{"exec", `{"command": "x", "side_effects": []}`},
		{"exec", `{"command": "x", "side_effects": ["NONE", "DELETES_FILES"]}`},
		{"exec", `{"command": "x", "side_effects": ["RUNS_INLINE_CODE"]}`},
		{"exec", `{"command": "x", "side_effects": ["none"]}`},
		{"exec", `{"command": "x", "side_effects": "NONE"}`},
		{"exec", `{"command": null, "side_effects": null}`},
		{"exec", `{"command": 42, "side_effects": ["NONE"]}`},
		{"exec", `{"side_effects": ["NONE"]}`},
		{"exec", `{}`},
		{"exec", `{"command": "x", "side_effects": ["NONE"], "cwd": "/nonexistent/dir"}`},
		{"exec", `{"command": "x", "side_effects": ["NONE"], "cwd": "../.."}`},
		{"exec", `{"command": "x", "side_effects": ["NONE"], "env": {"A": "1", "B": null}}`},
		{"exec", `{"command": "x", "side_effects": ["NONE"], "env": {"A\u0000B": "1"}}`},
		{"exec", `{"command": "x", "side_effects": ["NONE"], "env": ["A=1"]}`},
		{"exec", `{"command": "x", "side_effects": ["NONE"], "shell": "bash"}`},
		{"exec", `{"command": "x", "side_effects": ["NONE"], "yield_ms": 1e300, "timeout_ms": -1}`},
		{"exec", `{"command": "x", "side_effects": ["NONE"], "yield_ms": 99999999999999999999999, "timeout_ms": 1.5}`},
		{"exec", `{"command": "x", "side_effects": ["NONE"], "timeout_ms": 1, "yield_ms": 50}`},
		{"exec", `{"command": "x", "side_effects": ["NONE"], "max_output_bytes": -1, "tty": "yes"}`},
		{"exec", `{"command": "x", "side_effects": ["NONE"], "unknown": true}`},
		{"exec", `{"COMMAND": "x", "Side_Effects": ["NONE"]}`},
		{"exec", `{"command": "x", "side_effects": ["NONE"], "name": "\u00e9\u6f22\ud83d\ude00\ufffd"}`},
		{"exec", `{"command": "x", "side_effects": ["NONE"], "stdin": "\u001b[31m\u0003"}`},
		{"read", `{"process_id": "@live"}`},
		{"read", `{"process_id": "@live", "since_seq": 0, "max_output_bytes": 7}`},
		{"read", `{"process_id": "@live", "since_seq": -1}`},
		{"read", `{"process_id": "@live", "since_seq": 9223372036854775807}`},
		{"read", `{"process_id": "@live", "since_seq": 9223372036854775808}`},
		{"read", `{"process_id": "@live", "streams": "stderr", "view": "screen"}`},
		{"read", `{"process_id": "@live", "view": "screen", "since_seq": 3}`},
		{"read", `{"process_id": "@live", "streams": "all", "view": "tty"}`},
		{"read", `{"process_id": "@last", "view": "screen"}`},
		{"read", `{"process_id": "proc_000000000000"}`},
		{"read", `{"process_id": 7}`},
		{"read", `{"process_id": null}`},
		{"read", `{}`},
		{"write", `{"process_id": "@live", "input": "hello", "newline": true}`},
		{"write", `{"process_id": "@live", "input": "", "cols": 80, "rows": 24}`},
		{"write", `{"process_id": "@live", "input": "x", "cols": 80}`},
		{"write", `{"process_id": "@live", "input": "x", "cols": 1, "rows": 1001}`},
		{"write", `{"process_id": "@live", "input": "\u00e9\u6f22\ud83d\ude00 \u001b[2J"}`},
		{"write", `{"process_id": "@live", "input": "bye", "close_stdin": true}`},
		{"write", `{"process_id": "@last", "input": "late"}`},
		{"write", `{"process_id": "@live", "input": null, "newline": "yes"}`},
		{"write", `{"process_id": "nope", "input": "x"}`},
		{"wait", `{"process_id": "@live", "timeout_ms": 10}`},
		{"wait", `{"process_id": "@last", "timeout_ms": 10, "since_seq": 0, "max_output_bytes": 1}`},
		{"wait", `{"process_id": "@live", "timeout_ms": -100}`},
		{"wait", `{"process_id": "@live", "timeout_ms": "10"}`},
		{"wait", `{"process_id": "nope"}`},
		{"stop", `{"process_id": "@live"}`},
		{"stop", `{"process_id": "@live", "signal": "SIGINT", "force_after_ms": 10}`},
		{"stop", `{"process_id": "@live", "signal": "kill"}`},
		{"stop", `{"process_id": "@live", "signal": "SIGCONT", "force_after_ms": 0}`},
		{"stop", `{"process_id": "@live", "signal": "SIGBOGUS"}`},
		{"stop", `{"process_id": "@live", "signal": "0"}`},
		{"stop", `{"process_id": "@live", "signal": 9}`},
		{"stop", `{"process_id": "@last", "force_after_ms": -5}`},
		{"stop", `{"process_id": "nope"}`},
		{"ps", `{}`},
		{"ps", `{"include_completed": false, "limit": 1}`},
		{"ps", `{"limit": -1}`},
		{"ps", `{"limit": 1e10}`},
		{"ps", `{"include_completed": "no"}`},
		{"cleanup", `{}`},
		{"cleanup", `{"completed_older_than_ms": 0, "stopped_older_than_ms": 0}`},
		{"cleanup", `{"completed_older_than_ms": -1, "stopped_older_than_ms": 9223372036854775807}`},
		{"cleanup", `{"completed_older_than_ms": null, "extra": [1, 2, {"a": {}}]}`},
	}
	for _, s := range seeds {
		i := 0
		for i < len(fuzzTools) && fuzzTools[i] != s.tool {
			i++
		}
		f.Add(byte(i), s.args)
	}
	f.Fuzz(func(t *testing.T, tool byte, raw string) {
		name := fuzzTools[int(tool)%len(fuzzTools)]
		trimmed := bytes.TrimSpace([]byte(raw))
		if !json.Valid(trimmed) || len(trimmed) == 0 || trimmed[0] != '{' {
			t.Skip("not a JSON object")
		}
		dec := json.NewDecoder(bytes.NewReader(trimmed))
		dec.UseNumber()
		var args map[string]any
		if err := dec.Decode(&args); err != nil || args == nil {
			t.Skip("not a JSON object")
		}
		body := json.RawMessage(trimmed)
		if h.tame(t, name, args) {
			b, err := json.Marshal(args)
			if err != nil {
				t.Fatal(err)
			}
			body = b
		}

		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		defer cancel()
		res, err := h.cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: body})
		if err != nil {
			var we *jsonrpc.Error
			if !errors.As(err, &we) || we.Code != jsonrpc.CodeInvalidParams {
				t.Fatalf("%s %s: protocol error: %v", name, body, err)
			}
		} else if !res.IsError {
			if res.StructuredContent == nil {
				t.Fatalf("%s %s: answer without structured content: %+v", name, body, res)
			}
			sc, err := json.Marshal(res.StructuredContent)
			if err != nil || !json.Valid(sc) || sc[0] != '{' {
				t.Fatalf("%s %s: structured content is not a JSON object: %s (%v)", name, body, sc, err)
			}
			for _, c := range res.Content {
				if tc, ok := c.(*mcp.TextContent); ok && !json.Valid([]byte(tc.Text)) {
					t.Fatalf("%s %s: text content is not JSON: %q", name, body, tc.Text)
				}
			}
			if name == "exec" {
				var out struct {
					ProcessID string `json:"process_id"`
				}
				_ = json.Unmarshal(sc, &out)
				if out.ProcessID != "" {
					h.last = out.ProcessID
				}
			}
		}

		if name == "exec" {
			// Let what exec started end, and forget ended processes now
			// and then so that a long run does not pile them up.
			if p, err := h.m.Get(h.last); err == nil {
				p.WaitEnd(ctx, time.Now().Add(5*time.Second))
			}
			if h.n++; h.n >= 32 {
				h.n = 0
				h.m.Cleanup(0, 0)
			}
		}

		// The server is still there and still answers.
		ps, err := h.cs.CallTool(ctx, &mcp.CallToolParams{Name: "ps", Arguments: json.RawMessage(`{"limit": 1}`)})
		if err != nil || ps.IsError {
			t.Fatalf("after %s %s: ps failed: %v %+v", name, body, err, ps)
		}
	})
}
