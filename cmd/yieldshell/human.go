package main

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"

	"github.com/yieldshell/yieldshell/internal/human"
	"github.com/yieldshell/yieldshell/internal/tools/askhuman"
)

// humanPath is where --http serves ask_human's one-time pages, outside the
// bearer check: a page's own token is its only credential (package human).
const humanPath = "/human/"

// people is what asks the person at the other end (issue 33): the pages
// and what follows them. In stdio mode, and in the persistent server, the
// pages listen on 127.0.0.1 when the first is made; --http mounts them on
// its own listener (mountHuman).
type people struct {
	pages *human.Pages
	ask   *askhuman.Human
}

func newPeople(log *slog.Logger) (*people, error) {
	pages, err := human.New(human.Config{Logger: log})
	if err != nil {
		return nil, err
	}
	return &people{pages: pages, ask: askhuman.New(pages, log)}, nil
}

// close withdraws every page and joins what served and followed them.
func (pp *people) close(ctx context.Context) error {
	pp.ask.Close()
	return pp.pages.Close(ctx)
}

// mountHuman serves the pages under humanPath on hs, whose listener is at
// addr. A wildcard address becomes the loopback one: a page's Host must be
// the one its link names.
func mountHuman(pp *people, hs *http.Server, addr net.Addr) error {
	host := addr.String()
	if ta, ok := addr.(*net.TCPAddr); ok && ta.IP.IsUnspecified() {
		host = net.JoinHostPort("127.0.0.1", strconv.Itoa(ta.Port))
	}
	if err := pp.pages.Mount("http://" + host + humanPath); err != nil {
		return err
	}
	pages, next := pp.pages.Handler(), hs.Handler
	hs.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, humanPath) {
			pages.ServeHTTP(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
	return nil
}
