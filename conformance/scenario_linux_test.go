//go:build linux

package conformance

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestScenarioPsql is issue 34 item 7's psql session: five statements
// against a PostgreSQL cluster of the test's own, logged in through a
// password file the operator prepared (the model never sees the
// password). Calls and answer bytes are logged, never asserted; with
// steps the session takes one write, without them one per statement.
func TestScenarioPsql(t *testing.T) {
	psql := postgres(t, "")
	pgpass := filepath.Join(t.TempDir(), "pgpass")
	if err := os.WriteFile(pgpass, []byte("*:*:*:ada:"+secretWord+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	psql = strings.Replace(psql, "PGPASSFILE=/nonexistent", "PGPASSFILE="+pgpass, 1)
	s := start(t, "2025-06-18")
	steps := hasParam(t, s, "write", "steps")
	statements := []string{
		"create table t(a int, b text);",
		"insert into t values (1, 'one'), (2, 'two');",
		"select count(*) from t;",
		"update t set b = 'TWO' where a = 2;",
		"select * from t order by a;",
	}
	for _, useSteps := range []bool{false, true} {
		if useSteps && !steps {
			continue
		}
		m := &meter{s: s}
		r := m.call("exec", map[string]any{"command": psql, "side_effects": []string{"MODIFIES_WORKSPACE_FILES"}, "yield_ms": 10000})
		if !r.has("process_id") || r.str("input_kind") != "line" {
			t.Fatalf("psql did not wait for a statement: %s", r.text)
		}
		id := r.str("process_id")
		t.Cleanup(func() { s.stopQuietly(id) })
		out := m.session(t, id, statements, useSteps)
		if !strings.Contains(out, "TWO") {
			t.Errorf("psql session (steps %v): %q", useSteps, out)
		}
		// Not metered: the drop only readies the cluster for the next run.
		s.call("write", map[string]any{"process_id": id, "input": "drop table t;", "newline": true, "yield_ms": 10000})
		t.Logf("scenario %-22s calls %2d  bytes %7d  (steps %v)", "psql (5 statements)", m.calls, m.bytes, useSteps)
	}
}
