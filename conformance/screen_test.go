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

// A display that moves the cursor up to redraw several lines leaves its
// final state in the log, not each frame.
//
// Spec: issue 14 item 4: "the log shows A: 30% / B: 35% (not only the first frame)".
func TestLogFollowsMultiLineRedraw(t *testing.T) {
	forEachProtocol(t, nil, func(t *testing.T, s *server) {
		cmd := `printf 'line1\nA: 0%%\nB: 0%%\n'; for i in 1 2 3; do printf "\033[2A\rA: ${i}0%%\033[K\nB: ${i}5%%\033[K\n"; done; echo done`
		r := s.exec(cmd, map[string]any{"yield_ms": 10000}).mustStatus(t, "completed")
		if got, want := r.str("stdout"), "line1\nA: 30%\nB: 35%\ndone\n"; got != want {
			t.Errorf("stdout = %q, want %q", got, want)
		}
	})
}

// Two tqdm-style bars (the second one line below, the cursor moved back up
// after each update) log their final state once.
//
// Spec: issue 14 item 4: "Cursor up/down/absolute positioning ... leave in the log what a person saw scroll past, then the final state of what stayed on screen."
func TestLogFollowsMultiBar(t *testing.T) {
	forEachProtocol(t, nil, func(t *testing.T, s *server) {
		cmd := `echo start; for i in 0 1 2 3 4 5; do printf '\rtrain: %d/5 |%-5s|\n\rvalid: %d/5\033[A' $i "$(printf '%*s' $i '' | tr ' ' '#')" $i; done; printf '\n\n'; echo finished`
		r := s.exec(cmd, map[string]any{"yield_ms": 10000}).mustStatus(t, "completed")
		if got, want := r.str("stdout"), "start\ntrain: 5/5 |#####|\nvalid: 5/5\nfinished\n"; got != want {
			t.Errorf("stdout = %q, want %q", got, want)
		}
	})
}

// A running program's rows that are still on the screen go into the log
// when an answer looks at it (here: each time it waits for input), and a
// row drawn again after that is logged again at the next look; the
// positions of what was logged before do not move.
//
// Spec: issue 14 item 4: "decide, document and test when a row that can still change is committed".
func TestLogCommitsRowsWhenAnAnswerLooks(t *testing.T) {
	forEachProtocol(t, nil, func(t *testing.T, s *server) {
		cmd := `stty -echo; printf 'A: 0%%\nB: 0%%\n'; read x; printf '\033[2A\rA: 10%%\033[K\nB: 15%%\033[K\n'; printf '\033[2A\rA: 50%%\033[K\nB: 55%%\033[K\n'; read y; echo done`
		r := waiting(t, s.exec(cmd, map[string]any{"yield_ms": longYield}), "password")
		id := r.str("process_id")
		if got := r.str("stdout"); got != "A: 0%\nB: 0%\n" {
			t.Errorf("first answer stdout = %q", got)
		}
		first := r.num("next_seq")
		w := waiting(t, s.reply(id, ""), "password")
		if got := w.str("stdout"); got != "A: 50%\nB: 55%\n" {
			t.Errorf("after the redraws stdout = %q, want only what was on the screen", got)
		}
		if got := s.call("read", map[string]any{"process_id": id, "since_seq": first}).str("stdout"); got != "A: 50%\nB: 55%\n" {
			t.Errorf("read from the first answer's next_seq = %q", got)
		}
		s.reply(id, "").mustStatus(t, "completed")
		if got, want := s.readAll(id), "A: 0%\nB: 0%\nA: 50%\nB: 55%\ndone\n"; got != want {
			t.Errorf("whole log = %q, want %q", got, want)
		}
	})
}

// wait_for finds text that is on the screen but not in the log yet, and
// commits it: a dev server that prints its address and waits is verified
// at once.
//
// Spec: issue 14 item 4: "decide, document and test when a row that can still change is committed".
func TestWaitForSeesTheScreen(t *testing.T) {
	forEachProtocol(t, nil, func(t *testing.T, s *server) {
		r := s.exec(`printf 'building 0%%\r'; printf 'Listening on http://127.0.0.1:8080\n'; exec sleep 30`,
			map[string]any{"yield_ms": longYield, "wait_for": "Listening on"})
		if r.str("yield_reason") != "pattern" || !strings.Contains(r.str("stdout"), "Listening on http://127.0.0.1:8080") {
			t.Errorf("answer: %s", r.text)
		}
		s.stopQuietly(r.str("process_id"))
	})
}
