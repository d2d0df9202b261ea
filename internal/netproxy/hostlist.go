// Package netproxy is the network proxy a sandboxed command's traffic
// leaves through: HTTP CONNECT, plain HTTP forwarding (absolute-URI
// requests) and SOCKS5 CONNECT, admitting only the destinations of a host
// list and recording every one it refuses.
package netproxy

import (
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"

	"golang.org/x/net/idna"
)

// A List is a parsed host list: the destinations a sandboxed command may
// reach. The zero List admits nothing.
type List struct {
	rules []rule
}

// rule is one entry: a name (exact, or every name below it when wild), or
// an address prefix (a single address is a /32 or /128); port 0 is any.
type rule struct {
	name   string
	wild   bool
	prefix netip.Prefix
	port   uint16
}

// Parse reads a host list: entries separated by commas or white space,
// each an exact host name (example.com), a wildcard for the names below one
// (*.example.com; not example.com itself), an IP address (192.0.2.1,
// 2001:db8::1) or a CIDR prefix (10.0.0.0/8, [fd00::/8]), each with an
// optional :port ([2001:db8::1]:443 when the address is IPv6). Names are
// compared case-insensitively, with a trailing dot dropped and Unicode
// names in their ASCII (IDNA) form. Anything else (a URL, a path, user
// information, a wildcard anywhere but the first label) is an error that
// names the entry.
func Parse(s string) (List, error) {
	var l List
	for _, entry := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' || r == '\r' }) {
		r, err := parseEntry(entry)
		if err != nil {
			return List{}, fmt.Errorf("parse host list: entry %q: %w", entry, err)
		}
		l.rules = append(l.rules, r)
	}
	if len(l.rules) == 0 {
		return List{}, errors.New("parse host list: no entries")
	}
	return l, nil
}

// String is the list as Parse reads it back, each entry normalised.
func (l List) String() string {
	parts := make([]string, len(l.rules))
	for i, r := range l.rules {
		parts[i] = r.String()
	}
	return strings.Join(parts, ",")
}

func (r rule) String() string {
	var host string
	switch {
	case r.name != "" && r.wild:
		host = "*." + r.name
	case r.name != "":
		host = r.name
	case r.prefix.IsSingleIP():
		host = r.prefix.Addr().String()
	default:
		host = r.prefix.String()
	}
	if r.port == 0 {
		return host
	}
	if r.name == "" && r.prefix.Addr().Is6() {
		host = "[" + host + "]"
	}
	return host + ":" + strconv.Itoa(int(r.port))
}

func parseEntry(entry string) (rule, error) {
	if strings.ContainsAny(entry, "/@?#") && !isPrefixSyntax(entry) {
		return rule{}, errors.New("not a host: write a host name, *.name, an IP address or a CIDR prefix, with an optional :port (no scheme, path or user)")
	}
	host, port, err := splitPort(entry)
	if err != nil {
		return rule{}, err
	}
	if p, ok, err := parseAddr(host); ok {
		return rule{prefix: p, port: port}, err
	}
	wild := strings.HasPrefix(host, "*.")
	name, err := NormalizeName(strings.TrimPrefix(host, "*."))
	if err != nil {
		return rule{}, err
	}
	if wild && !strings.Contains(name, ".") {
		return rule{}, fmt.Errorf("wildcard over a top-level name (%s) is too broad", name)
	}
	return rule{name: name, wild: wild, port: port}, nil
}

// isPrefixSyntax says whether entry could be a CIDR prefix (digits, dots,
// colons, hex and brackets around one slash), which is the one place a
// slash is allowed.
func isPrefixSyntax(entry string) bool {
	if strings.Count(entry, "/") != 1 {
		return false
	}
	return strings.Trim(entry, "0123456789abcdefABCDEF.:/[]") == ""
}

// splitPort splits an optional :port off. A bare IPv6 address (two colons
// or more, no brackets) has no port.
func splitPort(entry string) (string, uint16, error) {
	if strings.HasPrefix(entry, "[") {
		end := strings.Index(entry, "]")
		if end < 0 {
			return "", 0, errors.New("missing ]")
		}
		host, rest := entry[1:end], entry[end+1:]
		if rest == "" {
			return host, 0, nil
		}
		p, ok := strings.CutPrefix(rest, ":")
		if !ok {
			return "", 0, errors.New("expected :port after ]")
		}
		port, err := parsePort(p)
		return host, port, err
	}
	if strings.Count(entry, ":") != 1 {
		return entry, 0, nil
	}
	host, p, _ := strings.Cut(entry, ":")
	port, err := parsePort(p)
	return host, port, err
}

func parsePort(s string) (uint16, error) {
	n, err := strconv.ParseUint(s, 10, 16)
	if err != nil || n == 0 || strings.HasPrefix(s, "+") {
		return 0, fmt.Errorf("port %q is not a number from 1 to 65535", s)
	}
	return uint16(n), nil
}

// parseAddr reads an IP address or CIDR prefix; ok is false when host is
// neither (it may be a name).
func parseAddr(host string) (netip.Prefix, bool, error) {
	if strings.Contains(host, "/") {
		p, err := netip.ParsePrefix(host)
		if err != nil {
			return netip.Prefix{}, true, fmt.Errorf("bad CIDR prefix: %w", err)
		}
		if p != p.Masked() {
			return netip.Prefix{}, true, fmt.Errorf("CIDR prefix has host bits set (did you mean %s?)", p.Masked())
		}
		return unmapPrefix(p), true, nil
	}
	if strings.Trim(host, "0123456789.") == "" || strings.Contains(host, ":") {
		a, err := netip.ParseAddr(host)
		if err != nil {
			return netip.Prefix{}, true, fmt.Errorf("bad IP address: %w", err)
		}
		if a.Zone() != "" {
			return netip.Prefix{}, true, errors.New("an IP address with a zone is not allowed")
		}
		a = a.Unmap()
		return netip.PrefixFrom(a, a.BitLen()), true, nil
	}
	return netip.Prefix{}, false, nil
}

// unmapPrefix turns an IPv4-mapped IPv6 prefix (::ffff:10.0.0.0/104) into
// its IPv4 form, so that one comparison covers both spellings.
func unmapPrefix(p netip.Prefix) netip.Prefix {
	if !p.Addr().Is4In6() || p.Bits() < 96 {
		return p
	}
	return netip.PrefixFrom(p.Addr().Unmap(), p.Bits()-96)
}

// NormalizeName is a host name as the list compares it: lower case, in
// its ASCII (IDNA) form, without a trailing dot. It is an error when name
// is not a valid host name.
func NormalizeName(name string) (string, error) {
	name = strings.TrimSuffix(name, ".")
	if name == "" {
		return "", errors.New("empty host name")
	}
	// UTS #46 mapping (case folded) with the host name rules of a lookup:
	// no underscores, labels and the whole within DNS lengths.
	profile := idna.New(idna.MapForLookup(), idna.StrictDomainName(true), idna.Transitional(false), idna.VerifyDNSLength(true))
	ascii, err := profile.ToASCII(name)
	if err != nil {
		return "", fmt.Errorf("not a valid host name: %w", err)
	}
	if strings.Trim(ascii, "0123456789.") == "" {
		return "", errors.New("not a valid host name: all digits")
	}
	return ascii, nil
}

// admitsName says whether a rule lists the host name (normalised) at port.
func (l List) admitsName(name string, port uint16) bool {
	for _, r := range l.rules {
		if r.name == "" || r.port != 0 && r.port != port {
			continue
		}
		if name == r.name && !r.wild || r.wild && strings.HasSuffix(name, "."+r.name) {
			return true
		}
	}
	return false
}

// admitsAddr says whether an address rule lists a at port. Names never
// list an address: a listed name reaches what it resolves to, checked
// separately.
func (l List) admitsAddr(a netip.Addr, port uint16) bool {
	a = a.Unmap()
	for _, r := range l.rules {
		if r.name == "" && (r.port == 0 || r.port == port) && r.prefix.Contains(a) {
			return true
		}
	}
	return false
}

// local says whether a is an address that reaches this machine or its
// link rather than the internet: loopback, link-local (cloud metadata
// services live there), unspecified, 0.0.0.0/8 or multicast. A listed
// name that resolves to one is refused unless an address rule lists it:
// the DNS-rebinding trap.
func local(a netip.Addr) bool {
	a = a.Unmap()
	return a.IsLoopback() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() || a.IsUnspecified() ||
		a.IsMulticast() || a.IsInterfaceLocalMulticast() || a.Is4() && a.As4()[0] == 0
}
