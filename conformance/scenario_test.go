//go:build unix

package conformance

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// meter counts what a scenario costs the model: tool calls, and bytes of
// answers it reads.
type meter struct {
	s            *server
	calls, bytes int
}

func (m *meter) call(tool string, args map[string]any) result {
	r := m.s.call(tool, args)
	m.calls++
	m.bytes += len(r.text)
	return r
}

// hasParam reports whether the server's tool takes a parameter: the
// scenarios use the issue-34 features where the binary has them, so that
// the same test measures a binary from before them (YS_CONFORMANCE_BIN).
func hasParam(t *testing.T, s *server, tool, param string) bool {
	res, err := s.cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range res.Tools {
		if tl.Name == tool {
			b, _ := json.Marshal(tl.InputSchema)
			return strings.Contains(string(b), `"`+param+`"`)
		}
	}
	return false
}

// session runs lines in an interactive program: one write per line, or
// one write with steps.
func (m *meter) session(t *testing.T, id string, lines []string, steps bool) string {
	var out strings.Builder
	if steps {
		var st []any
		for _, l := range lines {
			st = append(st, map[string]any{"input": l, "newline": true, "timeout_ms": 10000})
		}
		r := m.call("write", map[string]any{"process_id": id, "steps": st})
		if r.has("failed_step") {
			t.Fatalf("steps failed: %s", r.text)
		}
		for _, s := range r.m["steps"].([]any) {
			out.WriteString(s.(map[string]any)["stdout"].(string))
		}
		return out.String()
	}
	for _, l := range lines {
		r := m.call("write", map[string]any{"process_id": id, "input": l, "newline": true, "yield_ms": 10000})
		out.WriteString(r.str("stdout"))
	}
	return out.String()
}

// TestScenarios measures the scenarios of issue 34 item 7 and logs tool
// calls and answer bytes; run it against an older binary with
// YS_CONFORMANCE_BIN to compare. Figures are logged, never asserted.
func TestScenarios(t *testing.T) {
	s := start(t, "2025-06-18", "YIELDSHELL_MAX_BUFFER_BYTES=262144")
	steps, many := hasParam(t, s, "write", "steps"), hasParam(t, s, "wait", "process_ids")
	dir := t.TempDir()
	report := func(name string, m *meter) {
		t.Logf("scenario %-22s calls %2d  bytes %7d  (steps %v, process_ids %v)", name, m.calls, m.bytes, steps, many)
	}

	t.Run("gdb", func(t *testing.T) {
		if _, err := exec.LookPath("gdb"); err != nil {
			t.Skip("gdb is not installed")
		}
		if _, err := exec.LookPath("cc"); err != nil {
			t.Skip("cc is not installed")
		}
		src := filepath.Join(dir, "prog.c")
		os.WriteFile(src, []byte("int sq(int x){return x*x;}\nint main(void){int s=0;for(int i=0;i<5;i++)s+=sq(i);return s;}\n"), 0o644)
		if out, err := exec.Command("cc", "-g", "-O0", "-o", filepath.Join(dir, "prog"), src).CombinedOutput(); err != nil {
			t.Skipf("cc: %v %s", err, out)
		}
		m := &meter{s: s}
		r := m.call("exec", map[string]any{"command": "gdb -q -nx " + filepath.Join(dir, "prog"), "side_effects": []string{"NONE"}, "yield_ms": 10000})
		id := r.str("process_id")
		t.Cleanup(func() { s.stopQuietly(id) })
		out := m.session(t, id, []string{"break sq", "run", "bt", "print x", "finish", "info locals"}, steps)
		if !strings.Contains(out, "Breakpoint 1") {
			t.Errorf("gdb session: %q", out)
		}
		report("gdb (6 commands)", m)
	})
	t.Run("sqlite3", func(t *testing.T) {
		if _, err := exec.LookPath("sqlite3"); err != nil {
			t.Skip("sqlite3 is not installed")
		}
		m := &meter{s: s}
		r := m.call("exec", map[string]any{"command": "sqlite3 " + filepath.Join(dir, "db.sqlite"), "side_effects": []string{"MODIFIES_WORKSPACE_FILES"}, "yield_ms": 10000})
		id := r.str("process_id")
		t.Cleanup(func() { s.stopQuietly(id) })
		out := m.session(t, id, []string{"create table t(a int, b text);", "insert into t values(1,'one'),(2,'two');",
			"select count(*) from t;", "update t set b='TWO' where a=2;", "select * from t order by a;"}, steps)
		if !strings.Contains(out, "2|TWO") {
			t.Errorf("sqlite3 session: %q", out)
		}
		report("sqlite3 (5 statements)", m)
	})
	t.Run("devserver", func(t *testing.T) {
		if _, err := exec.LookPath("curl"); err != nil {
			t.Skip("curl is not installed")
		}
		if _, err := exec.LookPath("python3"); err != nil {
			t.Skip("python3 is not installed")
		}
		m := &meter{s: s}
		r := m.call("exec", map[string]any{"command": "cd " + dir + " && python3 -m http.server 0 --bind 127.0.0.1", "side_effects": []string{"MAKES_NETWORK_REQUESTS"},
			"name": "web", "wait_for": `Serving HTTP on \S+ port \d+`})
		id := r.str("process_id")
		t.Cleanup(func() { s.stopQuietly(id) })
		port := strings.Fields(strings.SplitN(r.str("matched"), "port ", 2)[1])[0]
		c := m.call("exec", map[string]any{"command": "curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:" + port + "/", "side_effects": []string{"MAKES_NETWORK_REQUESTS"}})
		if c.str("stdout") != "200" {
			t.Errorf("curl: %s", c.text)
		}
		report("dev server + curl", m)
	})
	t.Run("build_then_tests", func(t *testing.T) {
		// A build with an early error among much output, then its tests:
		// the agent needs the first error of the build and the tests' result.
		build := "echo 'src/a.c:12: error: expected ;'; seq 1 40000 | sed 's/^/  CC obj/'; echo 'build: 1 error'"
		tests := "sleep 0.5; seq 1 3000 | sed 's/^/ok test/'; echo 'PASS 3000 tests'"
		m := &meter{s: s}
		b := m.call("exec", map[string]any{"command": build, "side_effects": []string{"NONE"}, "yield_ms": 0})
		tt := m.call("exec", map[string]any{"command": tests, "side_effects": []string{"NONE"}, "yield_ms": 0})
		ids := []string{b.str("process_id"), tt.str("process_id")}
		got := map[string]string{}
		if many {
			for len(got) < 2 {
				var pending []string
				for _, id := range ids {
					if got[id] == "" {
						pending = append(pending, id)
					}
				}
				r := m.call("wait", map[string]any{"process_ids": pending, "timeout_ms": 30000})
				got[r.str("process_id")] = r.str("stdout")
			}
		} else {
			for _, id := range ids {
				got[id] = m.call("wait", map[string]any{"process_id": id, "timeout_ms": 30000}).str("stdout")
			}
		}
		if !strings.Contains(got[ids[0]], "error: expected") {
			// The first error was not in the answer: look for it.
			m.call("exec", map[string]any{"command": build + " | grep -m1 error", "side_effects": []string{"NONE"}})
		}
		if !strings.Contains(got[ids[1]], "PASS") {
			t.Errorf("tests: %q", got[ids[1]])
		}
		report("build then tests", m)
	})
	t.Run("log_first_error", func(t *testing.T) {
		log := filepath.Join(dir, "big.log")
		f, err := os.Create(log)
		if err != nil {
			t.Fatal(err)
		}
		line := strings.Repeat("INFO request served in 3ms path=/api/items/42 status=200 ", 2) + "\n"
		for i := 0; i < 100<<20/len(line)/2; i++ {
			f.WriteString(line)
		}
		f.WriteString("ERROR db: connection refused (first)\n")
		for i := 0; i < 100<<20/len(line)/2; i++ {
			f.WriteString(line)
		}
		f.WriteString("ERROR db: connection refused (second)\n")
		f.Close()
		m := &meter{s: s}
		// The agent asks for the error lines and reads the answer; a
		// first error is wanted, so it is the head that matters.
		r := m.call("exec", map[string]any{"command": "grep -n ERROR " + log + " ; grep -c INFO " + log, "side_effects": []string{"NONE"}, "yield_ms": 60000})
		if !strings.Contains(r.str("stdout"), "(first)") {
			m.call("exec", map[string]any{"command": "grep -n -m1 ERROR " + log, "side_effects": []string{"NONE"}, "yield_ms": 60000})
		}
		report("100 MB log, first error", m)
	})
}
