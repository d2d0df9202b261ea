//go:build unix

package conformance

import (
	"strings"
	"testing"
)

func screenOf(t *testing.T, r result) map[string]any {
	t.Helper()
	s, ok := r.m["screen"].(map[string]any)
	if !ok {
		t.Fatalf("answer has no screen: %s", r.text)
	}
	return s
}

func lines(s map[string]any) []string {
	var out []string
	for _, l := range s["lines"].([]any) {
		out = append(out, l.(string))
	}
	return out
}

// Spec: DESIGN PTY mode: "read can also return the rendered screen (rows, cursor, alternate-screen flag)".
func TestReadScreenView(t *testing.T) {
	forEachProtocol(t, nil, func(t *testing.T, s *server) {
		id := s.exec(`printf 'one\ntwo\nthree\033[2A\rX'; sleep 30`, map[string]any{"yield_ms": 0, "cols": 40, "rows": 10}).str("process_id")
		s.readUntil(id, "three")
		r := s.call("read", map[string]any{"process_id": id, "view": "screen", "since_seq": 0})
		sc := screenOf(t, r)
		if got := strings.Join(lines(sc), "|"); got != "Xne|two|three" {
			t.Errorf("screen lines = %q, want Xne|two|three", got)
		}
		if sc["cursor_row"] != 0.0 || sc["cursor_col"] != 1.0 || sc["cols"] != 40.0 || sc["rows"] != 10.0 || sc["alt_screen"] != false {
			t.Errorf("screen = %v", sc)
		}
		if r.has("stdout") || r.num("next_seq") != 0 {
			t.Errorf("view screen returned log output or moved the cursor: %s", r.text)
		}
		if bad := s.call("read", map[string]any{"process_id": id, "view": "pixels"}); !bad.isError {
			t.Errorf("view pixels accepted: %s", bad.text)
		}
		pipe := s.exec("sleep 30", map[string]any{"yield_ms": 0, "tty": false}).str("process_id")
		if r := s.call("read", map[string]any{"process_id": pipe, "view": "screen"}); !r.isError {
			t.Errorf("view screen in pipe mode: %s", r.text)
		}
	})
}

// A full-screen program gets its screen in every answer, and one line in
// the log instead of its redraws.
//
// Spec: DESIGN PTY mode: the rendered screen is "automatic when the program is in the alternate screen".
func TestAltScreenIsRendered(t *testing.T) {
	forEachProtocol(t, nil, func(t *testing.T, s *server) {
		r := s.exec(`printf 'before\n\033[?1049h\033[2J\033[H\033[1mtitle\033[0m\033[5;3Hbody'; sleep 30`, map[string]any{"yield_ms": 500})
		r.mustStatus(t, "backgrounded")
		sc := screenOf(t, r)
		if sc["alt_screen"] != true {
			t.Errorf("alt_screen = %v", sc["alt_screen"])
		}
		if l := lines(sc); len(l) != 5 || l[0] != "title" || l[4] != "  body" {
			t.Errorf("screen lines = %q", l)
		}
		if out := r.str("stdout"); !strings.HasPrefix(out, "before\n") || strings.Contains(out, "title") || strings.Count(out, "\n") != 2 {
			t.Errorf("log = %q, want the line before and one line for the full-screen program", out)
		}
	})
}

// Spec: DESIGN: each command gets its own pseudo-terminal, so a program sees a resize as a person's terminal shows it (SIGWINCH).
func TestResizeDeliversSIGWINCH(t *testing.T) {
	forEachProtocol(t, nil, func(t *testing.T, s *server) {
		id := s.exec(`trap 'stty size' WINCH; echo ready; while :; do sleep 0.05; done`, map[string]any{"yield_ms": 0}).str("process_id")
		s.readUntil(id, "ready")
		w := s.call("write", map[string]any{"process_id": id, "input": "", "cols": 100, "rows": 30})
		if w.m["ok"] != true {
			t.Fatalf("resize: %s", w.text)
		}
		s.readUntil(id, "30 100")
		sc := screenOf(t, s.call("read", map[string]any{"process_id": id, "view": "screen"}))
		if sc["cols"] != 100.0 || sc["rows"] != 30.0 {
			t.Errorf("screen size after resize = %vx%v", sc["cols"], sc["rows"])
		}
		if bad := s.call("write", map[string]any{"process_id": id, "input": "", "cols": 100}); !bad.isError {
			t.Errorf("resize with cols only accepted: %s", bad.text)
		}
	})
}
