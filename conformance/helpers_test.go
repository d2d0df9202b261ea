package conformance

import (
	"bufio"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"
)

// runHelper plays a child process with behaviour a shell cannot give
// portably. Every helper is used by a test.
func runHelper(args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "ys-helper: no helper named")
		return 2
	}
	switch args[0] {
	case "ignore-term":
		// Ignores SIGTERM so that only SIGKILL ends it.
		signal.Ignore(syscall.SIGTERM)
		fmt.Println("ready")
		time.Sleep(time.Hour)
	case "echo-lines":
		// Answers every input line until EOF.
		sc := bufio.NewScanner(os.Stdin)
		for sc.Scan() {
			fmt.Printf("got: %s\n", sc.Text())
		}
		fmt.Println("eof")
	case "bytes":
		// Writes n bytes of 'x' (or the pattern given) and exits.
		n, _ := strconv.Atoi(args[1])
		w := bufio.NewWriter(os.Stdout)
		for i := range n {
			w.WriteByte("0123456789abcdefghijklmnopqrstuvwxyz"[i%36])
		}
		w.Flush()
	case "split":
		// Writes args[1] in two halves, apart in time, so that they reach
		// the server in separate reads.
		half := len(args[1]) / 2
		os.Stdout.WriteString(args[1][:half])
		time.Sleep(50 * time.Millisecond)
		os.Stdout.WriteString(args[1][half:] + "\n")
	case "invalid-utf8":
		os.Stdout.Write([]byte("bad:\xff\xfe\xc3(end\n"))
	default:
		fmt.Fprintf(os.Stderr, "ys-helper: unknown helper %q\n", args[0])
		return 2
	}
	return 0
}
