package mcplog

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestLogsReachClients: server records go to stderr at its level and to a
// client at the level the client set, and nowhere before it set one.
func TestLogsReachClients(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "0"}, nil)
	var stderr bytes.Buffer
	log := slog.New(NewHandler(slog.NewTextHandler(&stderr, &slog.HandlerOptions{Level: slog.LevelWarn}), srv))

	var mu sync.Mutex
	var got []*mcp.LoggingMessageParams
	arrived := make(chan struct{}, 10)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "0"}, &mcp.ClientOptions{
		LoggingMessageHandler: func(_ context.Context, r *mcp.LoggingMessageRequest) {
			mu.Lock()
			got = append(got, r.Params)
			mu.Unlock()
			arrived <- struct{}{}
		},
	}).Connect(t.Context(), ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-06-18"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	log.Info("before the level is set")
	if err := cs.SetLoggingLevel(t.Context(), &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
		t.Fatal(err)
	}
	log.Debug("below the client's level")
	log.With("process_id", "proc_1").Info("process started", "pid", 42)
	log.Warn("something to fix")
	for range 2 {
		select {
		case <-arrived:
		case <-time.After(10 * time.Second):
			t.Fatal("log notifications did not arrive")
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 2 || got[0].Level != "info" || got[1].Level != "warning" {
		t.Fatalf("client got %d messages: %+v", len(got), got)
	}
	if d, _ := got[0].Data.(map[string]any); d["msg"] != "process started" || d["process_id"] != "proc_1" || d["pid"] != 42.0 {
		t.Errorf("data = %v, want the message and its attributes", got[0].Data)
	}
	if s := stderr.String(); strings.Contains(s, "process started") || !strings.Contains(s, "something to fix") {
		t.Errorf("stderr (level WARN) got:\n%s", s)
	}
}
