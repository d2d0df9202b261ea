package conformance

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/term"
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
	case "spin-print":
		// Keeps a CPU busy for args[1] ms, as an interpreter loading, then
		// prints "late" and sleeps.
		d, _ := strconv.Atoi(args[1])
		for end := time.Now().Add(time.Duration(d) * time.Millisecond); time.Now().Before(end); {
		}
		fmt.Println("late")
		time.Sleep(time.Minute)
	case "devserver":
		return devServer(args[1:])
	case "hostile-ssh":
		return hostileSSH(args[1])
	case "serve-stdin":
		return serveStdin()
	case "sdk-floor":
		return floorServer()
	case "query-flood":
		// Asks for the cursor position args[1] times in one burst, never
		// reads its input, then prints args[2] numbered lines and "done".
		// Like every program that queries its terminal, it puts the
		// terminal in raw mode first: with echo on, the kernel would echo
		// the replies into the middle of its lines, as a real terminal
		// shows them.
		if term.IsTerminal(0) {
			if st, err := term.MakeRaw(0); err == nil {
				defer term.Restore(0, st)
			}
		}
		q, _ := strconv.Atoi(args[1])
		lines, _ := strconv.Atoi(args[2])
		os.Stdout.WriteString(strings.Repeat("\x1b[6n", q))
		w := bufio.NewWriter(os.Stdout)
		for i := range lines {
			fmt.Fprintf(w, "after the flood %d\r\n", i)
		}
		w.WriteString("done\r\n")
		w.Flush()
	case "ticker":
		// Prints "tick <Unix nanoseconds>" every args[1] ms until it is
		// ended: continuous output, and when it was printed.
		d, _ := strconv.Atoi(args[1])
		for t := time.NewTicker(time.Duration(d) * time.Millisecond); ; <-t.C {
			fmt.Printf("tick %d\n", time.Now().UnixNano())
		}
	case "repl":
		return repl()
	case "invalid-utf8":
		os.Stdout.Write([]byte("bad:\xff\xfe\xc3(end\n"))
	default:
		fmt.Fprintf(os.Stderr, "ys-helper: unknown helper %q\n", args[0])
		return 2
	}
	return 0
}

// devServer plays a development server: it prints a banner at once, and
// after delay_ms its URL (with the time it printed it, in Unix
// nanoseconds, for latency measurements) and "ready". Then it answers its
// input: "crash" exits 3, "quit" exits 0, "say X" prints X.
//
// Arguments: delay_ms url [crash-runs=N counter=FILE]: with a counter file,
// each run adds one to it, and the first N runs crash (exit 3) right after
// "ready", as a server that fails until something is fixed.
func devServer(args []string) int {
	delay, _ := strconv.Atoi(args[0])
	url := args[1]
	crashRuns, counter := 0, ""
	for _, a := range args[2:] {
		if v, ok := strings.CutPrefix(a, "crash-runs="); ok {
			crashRuns, _ = strconv.Atoi(v)
		}
		if v, ok := strings.CutPrefix(a, "counter="); ok {
			counter = v
		}
	}
	fmt.Println("dev server starting")
	time.Sleep(time.Duration(delay) * time.Millisecond)
	fmt.Printf("  Local:   %s  (printed at %d)\n", url, time.Now().UnixNano())
	fmt.Println("ready")
	if counter != "" {
		b, _ := os.ReadFile(counter)
		n, _ := strconv.Atoi(strings.TrimSpace(string(b)))
		n++
		_ = os.WriteFile(counter, []byte(strconv.Itoa(n)), 0o600)
		if n <= crashRuns {
			fmt.Printf("run %d: crashing\n", n)
			return 3
		}
		fmt.Printf("run %d: up\n", n)
	}
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		switch line := strings.TrimSpace(sc.Text()); {
		case line == "crash":
			fmt.Println("crashing")
			return 3
		case line == "quit":
			return 0
		case strings.HasPrefix(line, "say "):
			fmt.Println(strings.TrimPrefix(line, "say "))
		}
	}
	return 0
}

// repl plays a REPL as Python's behaves at Ctrl-C: SIGINT abandons the
// line ("KeyboardInterrupt") and prompts again; "exit" ends it with code
// 0, any other line is echoed.
func repl() int {
	ints := make(chan os.Signal, 1)
	signal.Notify(ints, os.Interrupt)
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(os.Stdin)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	fmt.Print("repl> ")
	for {
		select {
		case <-ints:
			fmt.Print("\nKeyboardInterrupt\nrepl> ")
		case l, ok := <-lines:
			if !ok || l == "exit" {
				return 0
			}
			fmt.Printf("said %s\nrepl> ", l)
		}
	}
}

// hostileSSH stands in for ssh and an executor that misbehaves after
// the bootstrap said it runs: garbage, a flood with no end of line, or
// silence. It ends when the server hangs up.
func hostileSSH(mode string) int {
	fmt.Println("yieldshell-bootstrap ready Linux x86_64")
	switch mode {
	case "garbage":
		fmt.Println("\x1b]0;owned\x07{not json")
	case "flood":
		line := strings.Repeat("{", 64<<10)
		for {
			if _, err := os.Stdout.WriteString(line); err != nil {
				return 0
			}
		}
	}
	_, _ = io.Copy(io.Discard, os.Stdin)
	return 0
}
