package screen

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/creack/pty"
)

// BenchmarkDrain reads a workload from a real terminal, as the session's
// reader does (reads of up to 4 KiB), side by side: raw (the bytes only)
// and log (each read through a deferred 120x40 Cleaner, replies taken).
// The workloads are plain lines and the progress transcripts of the tmux
// oracle, repeated to about 4 MiB and played by cat.
func BenchmarkDrain(b *testing.B) {
	progress := func() []byte {
		var buf bytes.Buffer
		for buf.Len() < 4<<20 {
			for _, name := range []string{"tqdm_bars", "rich_progress", "docker_layers", "apt_region", "cargo_bar", "npm_spinner"} {
				raw, err := os.ReadFile(filepath.Join(oracleDir, name+".raw"))
				if err != nil {
					b.Fatal(err)
				}
				buf.Write(raw)
			}
		}
		return buf.Bytes()
	}
	workloads := []benchWorkload{benchWorkloads()[0], {"progress_transcripts", progress()}}
	for _, wl := range workloads {
		file := filepath.Join(b.TempDir(), wl.name)
		if err := os.WriteFile(file, wl.data, 0o644); err != nil {
			b.Fatal(err)
		}
		drain := func(b *testing.B, clean bool) {
			b.SetBytes(int64(len(wl.data)))
			buf := make([]byte, 4096)
			var out []byte
			for b.Loop() {
				cmd := exec.Command("cat", file)
				f, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: 120, Rows: 40})
				if err != nil {
					b.Fatal(err)
				}
				c := NewTerminal(120, 40)
				for {
					n, err := f.Read(buf)
					if clean && n > 0 {
						out = c.Write(out[:0], buf[:n])
						out = c.TakeReplies(out[:0])
					}
					if err != nil {
						break
					}
				}
				f.Close()
				_ = cmd.Wait()
			}
		}
		b.Run(wl.name+"/raw", func(b *testing.B) { drain(b, false) })
		b.Run(wl.name+"/log", func(b *testing.B) { drain(b, true) })
	}
}
