package proc

import (
	"maps"
	"testing"
)

// TestParseListening reads real /proc/net/tcp and tcp6 lines: only
// sockets in LISTEN (0A) count, by inode, with their port in hex.
func TestParseListening(t *testing.T) {
	tests := []struct {
		name  string
		table string
		want  map[uint64]int
	}{
		{"ipv4 listen and established", `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 48213 1 0000000000000000 100 0 0 10 0
   1: 0100007F:A3C2 0100007F:1F90 01 00000000:00000000 00:00000000 00000000  1000        0 48990 1 0000000000000000 20 4 30 10 -1
`, map[uint64]int{48213: 8080}},
		{"ipv6 wildcard", `  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 00000000000000000000000000000000:1538 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 51234 1 0000000000000000 100 0 0 10 0
`, map[uint64]int{51234: 5432}},
		{"header only", "  sl  local_address rem_address   st\n", map[uint64]int{}},
		{"short and malformed lines", `header
   0: 0100007F 00000000:0000 0A
   1: 0100007F:ZZZZ 00000000:0000 0A 0:0 0:0 0 0 0 77
   2: 0100007F:0050 00000000:0000 0A 0:0 0:0 0 0 0 x
`, map[uint64]int{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := map[uint64]int{}
			parseListening([]byte(tt.table), got)
			if !maps.Equal(got, tt.want) {
				t.Errorf("parseListening = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestSocketInode(t *testing.T) {
	for link, want := range map[string]uint64{"socket:[48213]": 48213, "pipe:[12]": 0, "socket:[x]": 0, "/dev/pts/3": 0} {
		if got, ok := socketInode(link); got != want || ok != (want != 0) {
			t.Errorf("socketInode(%q) = %d, %v", link, got, ok)
		}
	}
}
