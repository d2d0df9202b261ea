//go:build unix

package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// oracleDir holds the tmux oracle's transcripts of real programs.
const oracleDir = "../screen/testdata/oracle"

// The log is a function of the program's output and of the answers the
// agent received: the same redrawing transcripts, played with pauses
// longer than the log file's 200 ms of quiet, give byte-identical logs on
// a plain server and on one with the shell-yeah tools, a log directory, a
// progress token on the call and ps and list_shells called all along.
//
// Spec: issue 31 item 1: "A test feeds the same redrawing transcripts with
// and without a log directory, a progress token, the shell-yeah toolset and
// concurrent ps calls, and gets byte-identical logs."
func TestLogIsTheSameWhoeverLooks(t *testing.T) {
	slow(t, "transcripts played with pauses over the log file's 200 ms of quiet")
	dir := t.TempDir()
	commands := map[string]string{"step": `printf 'step 1'; sleep .6; printf '\rstep 2'; sleep .6; printf '\rdone  \n'`}
	for _, name := range []string{"cargo_bar", "docker_layers", "tqdm_bars"} {
		raw, err := os.ReadFile(filepath.Join(oracleDir, name+".raw"))
		if err != nil {
			t.Fatal(err)
		}
		commands[name] = playInPieces(t, filepath.Join(dir, name), raw, 4)
	}

	plain := start(t, "")
	var notes atomic.Int32
	client := mcp.NewClient(&mcp.Implementation{Name: "conformance", Version: "0"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) { notes.Add(1) },
	})
	watched, err := connectClient(t, client, "", "YIELDSHELL_TOOLSET=all", "YIELDSHELL_LOG_DIR="+filepath.Join(dir, "logs"))
	if err != nil {
		t.Fatal(err)
	}
	for name, command := range commands {
		want := playedLog(t, plain, command, false)
		got := playedLog(t, watched, command, true)
		if got != want {
			t.Errorf("%s: the log differs when watched\nwatched: %q\nalone:   %q", name, got, want)
		}
	}
	if notes.Load() == 0 {
		t.Error("no progress notification came: the calls were not watched")
	}
}

// playInPieces writes raw to files in n pieces, cut at carriage returns
// that redraw a line, and returns the command that plays them with a
// pause of 400 ms between each two, the terminal passing bytes as they
// are.
func playInPieces(t *testing.T, base string, raw []byte, n int) string {
	t.Helper()
	var cuts []int
	for i, b := range raw {
		if b == '\r' && i+1 < len(raw) && raw[i+1] != '\n' {
			cuts = append(cuts, i)
		}
	}
	cmd := []string{"stty -opost -echo"}
	start := 0
	for k := 1; k <= n; k++ {
		end := len(raw)
		if k < n && len(cuts) > 0 {
			end = max(cuts[k*len(cuts)/n-1], start)
		}
		path := fmt.Sprintf("%s.%d", base, k)
		if err := os.WriteFile(path, raw[start:end], 0o600); err != nil {
			t.Fatal(err)
		}
		if k > 1 {
			cmd = append(cmd, "sleep .4")
		}
		cmd = append(cmd, "cat "+path)
		start = end
	}
	return strings.Join(cmd, "; ")
}

// playedLog runs command to its end and returns its whole log; watched,
// the call carries a progress token and ps and list_shells are called
// until it answers.
func playedLog(t *testing.T, s *server, command string, watched bool) string {
	t.Helper()
	args := map[string]any{"command": command, "side_effects": []string{"NONE"}, "yield_ms": 30000}
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	p := &mcp.CallToolParams{Name: "exec", Arguments: args}
	var wg sync.WaitGroup
	if watched {
		p.SetProgressToken("watched")
		lookers, stop := context.WithCancel(ctx)
		defer wg.Wait()
		defer stop()
		wg.Go(func() {
			for lookers.Err() == nil {
				_, _ = s.cs.CallTool(lookers, &mcp.CallToolParams{Name: "ps", Arguments: map[string]any{}})
				_, _ = s.cs.CallTool(lookers, &mcp.CallToolParams{Name: "list_shells", Arguments: map[string]any{}})
			}
		})
	}
	res, err := s.cs.CallTool(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	r := decode(t, res)
	r.mustStatus(t, "completed")
	all := s.call("read", map[string]any{"process_id": r.str("process_id"), "since_seq": 0, "max_output_bytes": 1 << 20})
	return all.str("stdout")
}

// decode turns a tool's answer into a result.
func decode(t *testing.T, res *mcp.CallToolResult) result {
	t.Helper()
	r := result{isError: res.IsError, m: map[string]any{}}
	if len(res.Content) > 0 {
		if tc, ok := res.Content[0].(*mcp.TextContent); ok {
			r.text = tc.Text
		}
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &r.m); err != nil {
		t.Fatal(err)
	}
	return r
}
