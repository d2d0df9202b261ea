package screen

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// TestTerminfoCoverage walks every string capability of xterm-256color, from
// the copy in testdata and from the installed entry where infocmp exists: each
// must be in terminfoCaps (or be a key), and none may leave text behind in the
// log or on the screen when sent with parameters filled in (only rep prints).
func TestTerminfoCoverage(t *testing.T) {
	saved, err := os.ReadFile("testdata/xterm-256color.terminfo")
	if err != nil {
		t.Fatal(err)
	}
	t.Run("testdata", func(t *testing.T) { checkTerminfo(t, string(saved)) })
	t.Run("installed", func(t *testing.T) {
		out, err := exec.Command("infocmp", "-1", "xterm-256color").Output()
		if err != nil {
			t.Skip("infocmp not installed or no xterm-256color entry")
		}
		checkTerminfo(t, string(out))
	})
}

func checkTerminfo(t *testing.T, entry string) {
	caps := parseTerminfo(entry)
	if len(caps) < 50 {
		t.Fatalf("only %d string capabilities parsed", len(caps))
	}
	for name, val := range caps {
		if strings.HasPrefix(name, keyCapPrefix) {
			continue
		}
		use, ok := terminfoCaps[name]
		if !ok {
			t.Errorf("capability %s=%q is not in terminfoCaps", name, val)
			continue
		}
		if use.note == "" {
			t.Errorf("capability %s has no note", name)
		}
		if name == "acsc" || name == "u6" || name == "u8" {
			continue // not output
		}
		params := []int{2, 5, 1, 1, 1, 1, 1, 1, 1}
		want := ""
		if name == "rep" {
			params[0], params[1], want = 'x', 3, "xxx"
		}
		seq, err := tparm(val, params)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		in := "\x1b[3;3H" + seq + "\x1b[?1049l\x1b[0m\x1b(B\x1b[r\x1b[?6l\x1b[?7h\x1b[4l"
		c := NewTerminal(20, 6)
		got := strings.TrimSpace(string(c.Close(c.Write(nil, []byte(in)))))
		if name == "smcup" {
			got = strings.TrimSpace(strings.TrimPrefix(got, strings.TrimSpace(AltScreenNotice)))
		}
		if got != want {
			t.Errorf("%s (%q): log %q, want %q", name, seq, got, want)
		}
		s := New(20, 6)
		s.Write([]byte(in))
		if scr := strings.TrimSpace(strings.Join(s.Snapshot().Lines, "")); scr != want {
			t.Errorf("%s (%q): screen %q, want %q", name, seq, scr, want)
		}
	}
}

// parseTerminfo returns the string capabilities of infocmp -1 output, with
// escapes decoded.
func parseTerminfo(entry string) map[string]string {
	caps := map[string]string{}
	for _, line := range strings.Split(entry, "\n") {
		line = strings.TrimSuffix(strings.TrimSpace(line), ",")
		name, val, ok := strings.Cut(line, "=")
		if !ok || strings.HasPrefix(line, "#") || strings.Contains(name, "|") {
			continue
		}
		caps[name] = decodeTerminfo(val)
	}
	return caps
}

func decodeTerminfo(v string) string {
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		ch := v[i]
		switch {
		case ch == '^' && i+1 < len(v):
			i++
			b.WriteByte(v[i] & 0x1f)
		case ch == '\\' && i+1 < len(v):
			i++
			switch e := v[i]; e {
			case 'E', 'e':
				b.WriteByte(esc)
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case 's':
				b.WriteByte(' ')
			default:
				if e >= '0' && e <= '7' && i+2 < len(v) {
					n, _ := strconv.ParseUint(v[i:i+3], 8, 8)
					b.WriteByte(byte(n))
					i += 2
				} else {
					b.WriteByte(e)
				}
			}
		default:
			b.WriteByte(ch)
		}
	}
	// Padding ($<100/>) is for the sender, not the terminal.
	out := b.String()
	for {
		i := strings.Index(out, "$<")
		j := strings.IndexByte(out[max(i, 0):], '>')
		if i < 0 || j < 0 {
			return out
		}
		out = out[:i] + out[i+j+1:]
	}
}

// tparm instantiates a parameterised capability: the subset of terminfo's
// stack language xterm-256color uses.
func tparm(s string, params []int) (string, error) {
	p := append([]int(nil), params...)
	var out strings.Builder
	var stack []int
	pop := func() int {
		if len(stack) == 0 {
			return 0
		}
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		return v
	}
	// skip moves past the %e or %; that ends the current branch.
	skip := func(i int, toElse bool) int {
		depth := 0
		for ; i < len(s)-1; i++ {
			if s[i] != '%' {
				continue
			}
			i++
			switch s[i] {
			case '?':
				depth++
			case ';':
				if depth == 0 {
					return i + 1
				}
				depth--
			case 'e':
				if depth == 0 && toElse {
					return i + 1
				}
			}
		}
		return len(s)
	}
	for i := 0; i < len(s); {
		if s[i] != '%' || i+1 == len(s) {
			out.WriteByte(s[i])
			i++
			continue
		}
		i++
		op := s[i]
		i++
		switch {
		case op == '%':
			out.WriteByte('%')
		case op == 'p':
			stack = append(stack, p[s[i]-'1'])
			i++
		case op == 'd':
			out.WriteString(strconv.Itoa(pop()))
		case op == 'c':
			out.WriteByte(byte(pop()))
		case op == 'i':
			p[0]++
			p[1]++
		case op == '{':
			j := strings.IndexByte(s[i:], '}')
			n, _ := strconv.Atoi(s[i : i+j])
			stack = append(stack, n)
			i += j + 1
		case strings.IndexByte("+-*/m&|^=<>AO", op) >= 0:
			b, a := pop(), pop()
			stack = append(stack, arith(op, a, b))
		case op == '?' || op == ';':
		case op == 't':
			if pop() == 0 {
				i = skip(i, true)
			}
		case op == 'e':
			i = skip(i, false)
		case op >= '0' && op <= '9' || op == '.':
			j := i - 1
			for j < len(s) && strings.IndexByte("doxXs", s[j]) < 0 {
				j++
			}
			out.WriteString(fmt.Sprintf("%"+s[i-1:j+1], pop()))
			i = j + 1
		default:
			return "", fmt.Errorf("tparm: %%%c not supported", op)
		}
	}
	return out.String(), nil
}

func arith(op byte, a, b int) int {
	bool2int := func(v bool) int {
		if v {
			return 1
		}
		return 0
	}
	switch op {
	case '+':
		return a + b
	case '-':
		return a - b
	case '*':
		return a * b
	case '/', 'm':
		if b == 0 {
			return 0
		}
		if op == '/' {
			return a / b
		}
		return a % b
	case '&':
		return a & b
	case '|':
		return a | b
	case '^':
		return a ^ b
	case '=':
		return bool2int(a == b)
	case '<':
		return bool2int(a < b)
	case '>':
		return bool2int(a > b)
	case 'A':
		return bool2int(a != 0 && b != 0)
	}
	return bool2int(a != 0 || b != 0) // 'O'
}
