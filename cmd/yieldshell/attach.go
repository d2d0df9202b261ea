//go:build unix

package main

import (
	"context"
	"errors"
	"io"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func attach(ctx context.Context, cs *mcp.ClientSession, id string, watch bool, stdin io.Reader, stdout io.Writer) error {
	return errors.New("attach: not yet")
}
