package conformance

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
)

// serveStdin plays a Go server that reads its terminal for commands while
// it serves HTTP on a port of its own: "port N" at start, then "got X" for
// each line read, until EOF or "quit".
func serveStdin() int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	go func() { _ = http.Serve(l, http.NotFoundHandler()) }()
	fmt.Printf("port %d\n", l.Addr().(*net.TCPAddr).Port)
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); line == "quit" {
			return 0
		} else {
			fmt.Println("got", line)
		}
	}
	return 0
}
