package screen

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// benchData builds about 4 MiB of a workload.
func benchData(unit func(i int) string) []byte {
	var b bytes.Buffer
	for i := 0; b.Len() < 4<<20; i++ {
		b.WriteString(unit(i))
	}
	return b.Bytes()
}

// benchWorkloads is a function so that plain go test runs do not build them.
func benchWorkloads() []benchWorkload {
	return []benchWorkload{
		{"plain", benchData(func(i int) string {
			// 92-byte lines, as in go-deps §2.9 (a).
			return fmt.Sprintf("%06d %s\r\n", i, strings.Repeat("lorem ipsum ", 7)[:83])
		})},
		{"sgr", benchData(func(i int) string {
			// 256-colour and truecolour per word, as in go-deps §2.9 (b).
			return fmt.Sprintf("\x1b[38;5;%dmword\x1b[0m \x1b[1;38;2;%d;%d;%dmbold\x1b[0m \x1b[4;31mred\x1b[m %d\r\n",
				i%256, i%256, (i*7)%256, (i*13)%256, i)
		})},
		{"progress", benchData(func(i int) string {
			// "\r\x1b[K[####   ] 45%" updates, as in go-deps §2.9 (c).
			p := i % 101
			s := fmt.Sprintf("\r\x1b[K[%s%s] %3d%%", strings.Repeat("#", p/5), strings.Repeat(" ", 20-p/5), p)
			if p == 100 {
				s += "\r\n"
			}
			return s
		})},
		{"utf8", benchData(func(i int) string {
			return fmt.Sprintf("%d héllo wörld € 中文字符 😀 Ελληνικά кириллица\r\n", i)
		})},
	}
}

type benchWorkload struct {
	name string
	data []byte
}

// BenchmarkCleaner feeds each workload in 4 KiB writes (what a PTY read
// returns). The "baseline" sub-benchmarks copy the same bytes into a
// bytes.Buffer, so the ratio shows what the cleaner costs over a plain copy.
func BenchmarkCleaner(b *testing.B) {
	const chunk = 4096
	for _, wl := range benchWorkloads() {
		b.Run(wl.name, func(b *testing.B) {
			b.SetBytes(int64(len(wl.data)))
			c := NewCleaner(120)
			dst := make([]byte, 0, 64<<10)
			for b.Loop() {
				for i := 0; i < len(wl.data); i += chunk {
					dst = c.Write(dst[:0], wl.data[i:min(i+chunk, len(wl.data))])
				}
			}
		})
		b.Run(wl.name+"/baseline", func(b *testing.B) {
			b.SetBytes(int64(len(wl.data)))
			var buf bytes.Buffer
			buf.Grow(64 << 10)
			for b.Loop() {
				for i := 0; i < len(wl.data); i += chunk {
					buf.Reset()
					buf.Write(wl.data[i:min(i+chunk, len(wl.data))])
				}
			}
		})
	}
}
