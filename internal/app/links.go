package app

import (
	"context"
	"runtime"
	"sync"
	"weak"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// resourceLinks decides which answers keep their resource_link items (the
// process logs exec, read and ps link to): every answer when the operator
// set YIELDSHELL_RESOURCE_LINKS, else only those to a session whose
// client has read or subscribed to a resource, which shows it uses them.
// Other clients pay for a link without using it: Claude Code renders it
// as text in the model's context, Codex drops it, and clients that expect
// one content item (mcp-yieldshell 0.4.0's own suite) break.
type resourceLinks struct {
	always bool

	mu    sync.Mutex
	users map[weak.Pointer[mcp.ServerSession]]struct{}
}

func newResourceLinks(always bool) *resourceLinks {
	return &resourceLinks{always: always, users: map[weak.Pointer[mcp.ServerSession]]struct{}{}}
}

// Middleware notes the sessions that use resources and takes the links
// out of the others' tool answers.
func (l *resourceLinks) Middleware() mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			ss, _ := req.GetSession().(*mcp.ServerSession)
			switch method {
			case "resources/read", "resources/subscribe":
				l.use(ss)
			}
			res, err := next(ctx, method, req)
			if r, ok := res.(*mcp.CallToolResult); ok && r != nil && err == nil && method == "tools/call" && !l.always && !l.used(ss) {
				r.Content = withoutLinks(r.Content)
			}
			return res, err
		}
	}
}

func (l *resourceLinks) use(ss *mcp.ServerSession) {
	if ss == nil || l.always {
		return
	}
	k := weak.Make(ss)
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.users[k]; ok {
		return
	}
	l.users[k] = struct{}{}
	runtime.AddCleanup(ss, func(k weak.Pointer[mcp.ServerSession]) {
		l.mu.Lock()
		delete(l.users, k)
		l.mu.Unlock()
	}, k)
}

func (l *resourceLinks) used(ss *mcp.ServerSession) bool {
	if ss == nil {
		return false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	_, ok := l.users[weak.Make(ss)]
	return ok
}

func withoutLinks(content []mcp.Content) []mcp.Content {
	out := content[:0]
	for _, c := range content {
		if _, ok := c.(*mcp.ResourceLink); !ok {
			out = append(out, c)
		}
	}
	return out
}
