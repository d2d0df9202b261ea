package app

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"strconv"

	"github.com/yieldshell/yieldshell/internal/askhuman"
	"github.com/yieldshell/yieldshell/internal/human"
)

// HumanPath is where --http serves ask_human's one-time pages, outside
// the bearer check: a page's own token is its only credential (package
// human).
const HumanPath = "/human/"

// People is what asks the person at the other end (issue 33): the pages
// and what follows them. In stdio mode, and in the persistent server, the
// pages listen on 127.0.0.1 when the first is made; --http mounts them on
// its own listener (Handler and Mount).
type People struct {
	pages *human.Pages
	ask   *askhuman.Human
}

func newPeople(log *slog.Logger) (*People, error) {
	pages, err := human.New(human.Config{Logger: log})
	if err != nil {
		return nil, err
	}
	return &People{pages: pages, ask: askhuman.New(pages, log)}, nil
}

// close withdraws every page and joins what served and followed them.
func (pp *People) close(ctx context.Context) error {
	pp.ask.Close()
	return pp.pages.Close(ctx)
}

// Handler serves the pages under HumanPath.
func (pp *People) Handler() http.Handler { return pp.pages.Handler() }

// Mount makes the pages' links point to the HTTP listener at addr. A
// wildcard address becomes the loopback one: a page's Host must be the
// one its link names.
func (pp *People) Mount(addr net.Addr) error {
	host := addr.String()
	if ta, ok := addr.(*net.TCPAddr); ok && ta.IP.IsUnspecified() {
		host = net.JoinHostPort("127.0.0.1", strconv.Itoa(ta.Port))
	}
	return pp.pages.Mount("http://" + host + HumanPath)
}
