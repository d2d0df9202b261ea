package netproxy

import (
	"net/netip"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in, want string // want "" with err: the error contains errWant
		errWant  string
	}{
		{in: "example.com", want: "example.com"},
		{in: "Example.COM.", want: "example.com"},
		{in: "*.Example.com", want: "*.example.com"},
		{in: "example.com:443", want: "example.com:443"},
		{in: "*.example.com:8443", want: "*.example.com:8443"},
		{in: "bücher.example", want: "xn--bcher-kva.example"},
		{in: "BÜCHER.example.", want: "xn--bcher-kva.example"},
		{in: "a.com, b.com\tc.com\nd.com", want: "a.com,b.com,c.com,d.com"},
		{in: " a.com ,, b.com ", want: "a.com,b.com"},
		{in: "192.0.2.1", want: "192.0.2.1"},
		{in: "192.0.2.1:80", want: "192.0.2.1:80"},
		{in: "10.0.0.0/8", want: "10.0.0.0/8"},
		{in: "10.0.0.0/8:443", want: "10.0.0.0/8:443"},
		{in: "2001:db8::1", want: "2001:db8::1"},
		{in: "[2001:DB8::1]", want: "2001:db8::1"},
		{in: "[2001:db8::1]:443", want: "[2001:db8::1]:443"},
		{in: "fd00::/8", want: "fd00::/8"},
		{in: "[fd00::/8]:22", want: "[fd00::/8]:22"},
		{in: "::ffff:192.0.2.1", want: "192.0.2.1"},
		{in: "::ffff:10.0.0.0/104", want: "10.0.0.0/8"},
		{in: "localhost", want: "localhost"},

		{in: "", errWant: "no entries"},
		{in: " , ", errWant: "no entries"},
		{in: "https://example.com", errWant: "not a host"},
		{in: "example.com/path", errWant: "not a host"},
		{in: "user:pw@example.com", errWant: "not a host"},
		{in: "example.com?x", errWant: "not a host"},
		{in: "*", errWant: "not a valid host name"},
		{in: "*.com", errWant: "too broad"},
		{in: "*example.com", errWant: "not a valid host name"},
		{in: "a.*.example.com", errWant: "not a valid host name"},
		{in: "**.example.com", errWant: "not a valid host name"},
		{in: "exa_mple.com", errWant: "not a valid host name"},
		{in: "-bad.com", errWant: "not a valid host name"},
		{in: "bad-.com", errWant: "not a valid host name"},
		{in: "a..com", errWant: "not a valid host name"},
		{in: strings.Repeat("a", 64) + ".com", errWant: "not a valid host name"},
		{in: "example.com:0", errWant: "port"},
		{in: "example.com:65536", errWant: "port"},
		{in: "example.com:http", errWant: "port"},
		{in: "example.com:+80", errWant: "port"},
		{in: "example.com:", errWant: "port"},
		{in: "[2001:db8::1]x", errWant: "expected :port"},
		{in: "[2001:db8::1", errWant: "missing ]"},
		{in: "256.1.1.1", errWant: "bad IP address"},
		{in: "010.0.0.1", errWant: "bad IP address"},
		{in: "1.2.3", errWant: "bad IP address"},
		{in: "fe80::1%eth0", errWant: "zone"},
		{in: "10.0.0.1/8", errWant: "host bits"},
		{in: "10.0.0.0/33", errWant: "bad CIDR"},
		{in: "good.com,bad_.com", errWant: `"bad_.com"`},
	}
	for _, tt := range tests {
		l, err := Parse(tt.in)
		if tt.errWant != "" {
			if err == nil || !strings.Contains(err.Error(), tt.errWant) {
				t.Errorf("Parse(%q) = %q, %v; want an error containing %q", tt.in, l, err, tt.errWant)
			}
			continue
		}
		if err != nil || l.String() != tt.want {
			t.Errorf("Parse(%q) = %q, %v; want %q", tt.in, l, err, tt.want)
		}
	}
}

func TestListAdmits(t *testing.T) {
	l, err := Parse("example.com, *.wild.example, api.test:443, 192.0.2.0/24, [2001:db8::1]:22, 127.0.0.2")
	if err != nil {
		t.Fatal(err)
	}
	names := []struct {
		name string
		port uint16
		want bool
	}{
		{"example.com", 80, true},
		{"example.com", 1, true},
		{"www.example.com", 443, false}, // exact names admit no subdomain
		{"wild.example", 443, false},    // a wildcard does not admit its apex
		{"a.wild.example", 443, true},
		{"a.b.wild.example", 443, true},
		{"xwild.example", 443, false},
		{"api.test", 443, true},
		{"api.test", 80, false},
		{"example.co", 80, false},
		{"com", 80, false},
	}
	for _, tt := range names {
		if got := l.admitsName(tt.name, tt.port); got != tt.want {
			t.Errorf("admitsName(%q, %d) = %v, want %v", tt.name, tt.port, got, tt.want)
		}
	}
	addrs := []struct {
		addr string
		port uint16
		want bool
	}{
		{"192.0.2.7", 80, true},
		{"::ffff:192.0.2.7", 80, true},
		{"192.0.3.7", 80, false},
		{"2001:db8::1", 22, true},
		{"2001:db8::1", 23, false},
		{"2001:db8::2", 22, false},
		{"127.0.0.2", 9, true},
		{"127.0.0.1", 9, false},
	}
	for _, tt := range addrs {
		if got := l.admitsAddr(netip.MustParseAddr(tt.addr), tt.port); got != tt.want {
			t.Errorf("admitsAddr(%s, %d) = %v, want %v", tt.addr, tt.port, got, tt.want)
		}
	}
}

func TestLocal(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1": true, "127.9.9.9": true, "::1": true, "::ffff:127.0.0.1": true,
		"169.254.169.254": true, "fe80::1": true, "0.0.0.0": true, "0.1.2.3": true, "::": true,
		"224.0.0.1": true, "ff02::1": true,
		"10.1.2.3": false, "192.168.1.1": false, "93.184.216.34": false, "2606:4700::1": false,
	} {
		if got := local(netip.MustParseAddr(addr)); got != want {
			t.Errorf("local(%s) = %v, want %v", addr, got, want)
		}
	}
}
