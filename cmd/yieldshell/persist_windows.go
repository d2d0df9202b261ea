package main

import (
	"context"
	"fmt"

	"github.com/yieldshell/yieldshell/internal/policy"
)

// The persistent per-user server, and the ps, logs and attach commands that
// talk to it, listen on a Unix socket; on Windows they are not built (a
// named pipe with an owner-only security descriptor would be the way).

func persistVars() []policy.Var { return nil }

func noPersist(c *cli, what string) int {
	fmt.Fprintf(c.stderr, "yieldshell: %s needs the persistent server, which is not available on Windows; run yieldshell without it\n", what)
	return 2
}

func bridgeCmd(ctx context.Context, c *cli) int { return noPersist(c, "--persist") }

func serverCmd(ctx context.Context, c *cli, args []string) int { return noPersist(c, "server") }

func psCmd(ctx context.Context, c *cli, args []string) int { return noPersist(c, "ps") }

func logsCmd(ctx context.Context, c *cli, args []string) int { return noPersist(c, "logs") }

func attachCmd(ctx context.Context, c *cli, args []string) int { return noPersist(c, "attach") }
