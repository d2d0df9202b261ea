//go:build unix

package conformance

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// blobFile writes a test file of binary output: every byte value 0..255,
// reps times, with hostile escape sequences between the repetitions when
// hostile is set: a clipboard write (OSC 52), a screen clear, a hyperlink
// (OSC 8) and an 8-bit CSI.
func blobFile(t *testing.T, reps int, hostile bool) (string, []byte) {
	t.Helper()
	var b []byte
	for i := range reps {
		for c := range 256 {
			b = append(b, byte(c))
		}
		if hostile {
			b = append(b, []string{
				"\x1b]52;c;aGVsbG8=\a",
				"\x1b[2J\x1b[H",
				"\x1b]8;;https://evil.example/\x1b\\link\x1b]8;;\x1b\\",
				"\x9b2J\x9d0;title\x9c",
			}[i%4]...)
		}
	}
	path := filepath.Join(t.TempDir(), "blob")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path, b
}

// readRaw reads the exact stored bytes of [from, to) back with read's
// encoding "base64", page by page.
func (s *server) readRaw(t *testing.T, id string, from, to int) []byte {
	t.Helper()
	var got []byte
	for seq := from; seq < to; {
		p := s.call("read", map[string]any{"process_id": id, "since_seq": seq, "encoding": "base64", "max_output_bytes": 4096})
		if p.isError || p.str("encoding") != "base64" || p.m["evicted"] == true {
			t.Fatalf("read base64 from %d: %s", seq, p.text)
		}
		b, err := base64.StdEncoding.DecodeString(p.str("stdout"))
		if err != nil || len(p.str("stdout")) > 4096 {
			t.Fatalf("read base64 from %d: %v (%d bytes)", seq, err, len(p.str("stdout")))
		}
		next := int(p.num("next_seq"))
		if next <= seq || len(b) != next-seq {
			t.Fatalf("read base64 from %d: next_seq %d for %d bytes", seq, next, len(b))
		}
		got = append(got, b...)
		seq = next
	}
	return got[:to-from]
}

// binaryPart returns the answer's only binary part.
func binaryPart(t *testing.T, r result) (from, to int) {
	t.Helper()
	parts, _ := r.m["binary_parts"].([]any)
	if len(parts) != 1 {
		t.Fatalf("binary_parts %v: %s", r.m["binary_parts"], r.text)
	}
	p := parts[0].(map[string]any)
	return int(p["from_seq"].(float64)), int(p["to_seq"].(float64))
}

// Spec: issue 34 item 3: binary output "is answered with binary: true and
// a byte count instead of replacement characters, and is still stored
// losslessly". The count is what the program wrote, and read with
// encoding "base64" returns those bytes: in pipe mode the file's; in PTY
// mode what the terminal passed on, which is the file's once the terminal
// is raw (stty raw) and has each \n as \r\n otherwise (onlcr).
func TestBinaryExactBytes(t *testing.T) {
	path, blob := blobFile(t, 64, false)
	cooked := bytes.ReplaceAll(blob, []byte("\n"), []byte("\r\n"))
	forEachProtocol(t, nil, func(t *testing.T, s *server) {
		for _, tc := range []struct {
			name, cmd string
			tty       bool
			want      []byte
		}{
			{"pipes", "cat " + path, false, blob},
			{"pty raw", "stty raw -echo; cat " + path, true, blob},
			{"pty cooked", "cat " + path, true, cooked},
		} {
			r := s.exec(tc.cmd, map[string]any{"tty": tc.tty, "yield_ms": 30000}).mustStatus(t, "completed")
			if r.m["binary"] != true || int(r.num("bytes")) != len(tc.want) {
				t.Errorf("%s: binary %v bytes %v, want %d: %.300s", tc.name, r.m["binary"], r.m["bytes"], len(tc.want), r.text)
				continue
			}
			if strings.TrimSpace(r.str("stdout")) != "" {
				t.Errorf("%s: stdout %q", tc.name, r.str("stdout"))
			}
			from, to := binaryPart(t, r)
			got := s.readRaw(t, r.str("process_id"), from, to)
			if !bytes.Equal(got, tc.want) {
				i := 0
				for i < min(len(got), len(tc.want)) && got[i] == tc.want[i] {
					i++
				}
				t.Errorf("%s: the bytes read back differ from byte %d (%d read, %d written)", tc.name, i, len(got), len(tc.want))
			}
		}
		// The first bytes of an executable, as in the issue.
		r := s.exec("head -c 4096 /bin/true", map[string]any{"tty": false}).mustStatus(t, "completed")
		if r.m["binary"] != true || r.num("bytes") == 0 {
			t.Errorf("head -c 4096 /bin/true: %.300s", r.text)
		}
		if r.m["binary"] == true {
			want, _ := os.ReadFile("/bin/true")
			want = want[:min(len(want), 4096)]
			got := s.readRaw(t, r.str("process_id"), 0, int(r.num("next_seq")))
			if !bytes.Equal(got, want) {
				t.Errorf("head -c 4096 /bin/true: %d bytes read back, not the file's %d", len(got), len(want))
			}
		}
	})
}

// A hostile program's escape sequences inside binary output never reach a
// text answer (exec, read, wait, read's screen), in either mode; the bytes
// are still stored, and come back only base64-encoded.
func TestBinaryEscapesNeverText(t *testing.T) {
	path, blob := blobFile(t, 16, true)
	forEachProtocol(t, nil, func(t *testing.T, s *server) {
		for _, tty := range []bool{false, true} {
			cmd := "cat " + path
			if tty {
				cmd = "stty raw -echo; " + cmd
			}
			r := s.exec(cmd, map[string]any{"tty": tty, "yield_ms": 30000}).mustStatus(t, "completed")
			id := r.str("process_id")
			answers := []result{r,
				s.call("read", map[string]any{"process_id": id}),
				s.call("read", map[string]any{"process_id": id, "since_seq": 0}),
				s.call("read", map[string]any{"process_id": id, "since_seq": 100, "max_output_bytes": 300}),
				s.call("wait", map[string]any{"process_id": id, "timeout_ms": 100}),
			}
			if tty {
				answers = append(answers, s.call("read", map[string]any{"process_id": id, "view": "screen"}))
			}
			for i, a := range answers {
				noControlText(t, a)
				if i < 3 && (a.m["binary"] != true || int(a.num("bytes")) != len(blob)) {
					t.Errorf("tty=%v answer %d: binary %v bytes %v, want %d", tty, i, a.m["binary"], a.m["bytes"], len(blob))
				}
			}
			from, to := binaryPart(t, r)
			if got := s.readRaw(t, id, from, to); !bytes.Equal(got, blob) {
				t.Errorf("tty=%v: the hostile blob was not stored exactly (%d bytes read back of %d)", tty, len(got), len(blob))
			}
		}
	})
}

// noControlText fails if an answer's text shows an escape, a NUL, a C1
// control or what blobFile's sequences carry, in any string it holds.
func noControlText(t *testing.T, r result) {
	t.Helper()
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			for _, bad := range []string{"\x1b", "\x00", "aGVsbG8", "evil.example", "\ufffd"} {
				if strings.Contains(v, bad) {
					t.Errorf("an answer shows %q: %.200q", bad, v)
				}
			}
			for _, c := range v {
				if c >= 0x80 && c <= 0x9f {
					t.Errorf("an answer shows the C1 control %#x: %.200q", c, v)
					break
				}
			}
		case map[string]any:
			for _, x := range v {
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(r.m)
	var content any
	if err := json.Unmarshal([]byte(r.text), &content); err == nil {
		walk(content)
	}
	if !utf8.ValidString(r.text) {
		t.Errorf("answer text is not UTF-8")
	}
}

// Spec: issue 34 item 3, mixed output: text, then binary output, then text
// keep their text parts as text; the binary part is listed and read back.
func TestBinaryMixedOutput(t *testing.T) {
	path, blob := blobFile(t, 16, true)
	forEachProtocol(t, nil, func(t *testing.T, s *server) {
		for _, tty := range []bool{false, true} {
			r := s.exec("echo before; cat "+path+"; printf '\\nafter\\n'", map[string]any{"tty": tty, "yield_ms": 30000}).mustStatus(t, "completed")
			out := strings.ReplaceAll(r.str("stdout"), "\r", "")
			if !strings.HasPrefix(out, "before\n") || !strings.HasSuffix(out, "after\n") || r.m["binary"] != true {
				t.Errorf("tty=%v: stdout %q binary %v: %.300s", tty, out, r.m["binary"], r.text)
			}
			noControlText(t, r)
			from, to := binaryPart(t, r)
			want := blob
			if tty {
				want = bytes.ReplaceAll(blob, []byte("\n"), []byte("\r\n"))
			}
			if got := s.readRaw(t, r.str("process_id"), from, to); !bytes.HasPrefix(got, want) || len(got) > len(want)+2 {
				t.Errorf("tty=%v: binary part [%d, %d) is not the blob (%d bytes, blob %d)", tty, from, to, len(got), len(want))
			}
		}
	})
}

// A secret inside binary output is redacted in the stored bytes too: the
// base64 read, which returns them exactly, never has it.
func TestBinaryRedactsSecrets(t *testing.T) {
	const secret = "supersecret-value-123"
	forEachProtocol(t, []string{"MY_SECRET_KEY=" + secret}, func(t *testing.T, s *server) {
		for _, tty := range []bool{false, true} {
			r := s.exec(`printf '\000\001\002%s\000\377' "$MY_SECRET_KEY"`, map[string]any{"tty": tty}).mustStatus(t, "completed")
			if r.m["binary"] != true || strings.Contains(r.text, secret) {
				t.Fatalf("tty=%v: %s", tty, r.text)
			}
			got := s.readRaw(t, r.str("process_id"), 0, int(r.num("next_seq")))
			if bytes.Contains(got, []byte(secret)) || !bytes.Contains(got, []byte("\x00\x01\x02[REDACTED:MY_SECRET_KEY]\x00\xff")) {
				t.Errorf("tty=%v: stored %q", tty, got)
			}
		}
	})
}

// In an interactive bash, cat of binary output answers when the command
// ends, with its exit code, binary: true and the count the terminal gave
// (each \n as \r\n); the prompt after it is text again, and the next
// command's output is text.
func TestBinaryInShellSession(t *testing.T) {
	need(t, "bash")
	path, blob := blobFile(t, 16, true)
	forEachProtocol(t, nil, func(t *testing.T, s *server) {
		r := waiting(t, s.exec("bash", map[string]any{"yield_ms": longYield}), "command")
		id := r.str("process_id")
		a := waiting(t, s.reply(id, "cat "+path), "command")
		want := len(blob) + bytes.Count(blob, []byte("\n"))
		if a.num("command_exit_code") != 0 || a.m["binary"] != true || int(a.num("bytes")) != want {
			t.Errorf("cat: binary %v bytes %v (want %d): %.400s", a.m["binary"], a.m["bytes"], want, a.text)
		}
		noControlText(t, a)
		if out := a.str("stdout"); !strings.HasPrefix(out, "cat "+path+"\n") || !strings.HasSuffix(out, "$ ") && !strings.HasSuffix(out, "# ") {
			t.Errorf("cat: the command line and the prompt are not text around the binary output: %q", out)
		}
		a = waiting(t, s.reply(id, "echo plain words"), "command")
		if a.has("binary") || !strings.Contains(a.str("stdout"), "plain words") {
			t.Errorf("echo after cat: %s", a.text)
		}
		s.stopQuietly(id)
	})
}

// The log resource of mixed output is a blob of the exact stored bytes,
// text and binary, where read shows the text and says binary.
func TestBinaryResourceBlob(t *testing.T) {
	path, blob := blobFile(t, 16, false)
	forEachProtocol(t, nil, func(t *testing.T, s *server) {
		r := s.exec("echo before; cat "+path+"; printf '\\nafter\\n'", map[string]any{"tty": false}).mustStatus(t, "completed")
		if r.str("stdout") != "before\n\nafter\n" && r.str("stdout") != "before\nafter\n" {
			t.Errorf("exec: %.300s", r.text)
		}
		res, _, meta := s.readResource(t, logURI(r.str("process_id")))
		want := "before\n" + string(blob) + "\nafter\n"
		if c := res.Contents[0]; string(c.Blob) != want || c.MIMEType != "application/octet-stream" {
			t.Errorf("blob: %d bytes, want %d", len(c.Blob), len(want))
		}
		if meta["binary"] != true || int(meta["bytes"].(float64)) < len(blob) {
			t.Errorf("meta: %v", meta)
		}
	})
}
