package proc

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"strings"
)

// SocketInodes adds to set the inodes of process pid's sockets, looking at
// its first max descriptors (/proc/PID/fd links of the form socket:[N]).
func SocketInodes(pid, max int, set map[uint64]bool) {
	dir := path(pid, "fd/")
	f, err := os.Open(dir)
	if err != nil {
		return
	}
	names, _ := f.Readdirnames(max)
	_ = f.Close()
	for _, n := range names {
		l, err := os.Readlink(dir + n)
		if err != nil {
			continue
		}
		if ino, ok := socketInode(l); ok {
			set[ino] = true
		}
	}
}

// socketInode returns N of a descriptor link "socket:[N]".
func socketInode(link string) (uint64, bool) {
	v, ok := strings.CutPrefix(link, "socket:[")
	if !ok {
		return 0, false
	}
	ino, err := strconv.ParseUint(strings.TrimSuffix(v, "]"), 10, 64)
	return ino, err == nil
}

// ListeningTCP returns the local ports of the listening TCP sockets, IPv4
// and IPv6, in process pid's network namespace (/proc/PID/net/tcp and
// tcp6), by socket inode.
func ListeningTCP(pid int) map[uint64]int {
	ports := map[uint64]int{}
	for _, f := range []string{"net/tcp", "net/tcp6"} {
		if b, err := readFile(path(pid, f), nil); err == nil {
			parseListening(b, ports)
		}
	}
	return ports
}

// tcpListen is the state column's value for a listening socket.
const tcpListen = "0A"

// parseListening adds to ports the listening sockets of a /proc/net/tcp
// table: a header, then per socket "sl local_address rem_address st
// tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode ...", with the
// local address as HEXADDR:HEXPORT.
func parseListening(b []byte, ports map[uint64]int) {
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Scan() // the header
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 10 || f[3] != tcpListen {
			continue
		}
		ino, err := strconv.ParseUint(f[9], 10, 64)
		if err != nil {
			continue
		}
		_, hexPort, ok := strings.Cut(f[1], ":")
		if !ok {
			continue
		}
		if port, err := strconv.ParseUint(hexPort, 16, 16); err == nil {
			ports[ino] = int(port)
		}
	}
}
