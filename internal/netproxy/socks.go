package netproxy

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net/netip"
	"syscall"
)

// SOCKS5 (RFC 1928) as spoken here: no authentication, CONNECT only (BIND
// and UDP ASSOCIATE are refused as unsupported), IPv4, IPv6 and domain
// name destinations; a name is resolved by the proxy (socks5h).
const (
	socksVersion = 5

	socksNoAuth       = 0x00
	socksNoAcceptable = 0xff

	socksConnect = 1

	socksAtypIPv4   = 1
	socksAtypDomain = 3
	socksAtypIPv6   = 4

	socksOK             = 0x00
	socksFailure        = 0x01
	socksNotAllowed     = 0x02
	socksNetUnreachable = 0x03
	socksHostUnreach    = 0x04
	socksRefused        = 0x05
	socksCmdUnsupported = 0x07
	socksAtypUnsupport  = 0x08
)

func (p *Proxy) serveSOCKS(ctx context.Context, c *clientConn) {
	if !socksGreet(c) {
		return
	}
	var head [4]byte // VER CMD RSV ATYP
	if _, err := io.ReadFull(c.br, head[:]); err != nil || head[0] != socksVersion {
		return
	}
	host, port, ok := socksAddr(c, head[3])
	if !ok {
		socksReply(c, socksAtypUnsupport)
		return
	}
	if head[1] != socksConnect {
		socksReply(c, socksCmdUnsupported)
		return
	}
	dst, err := p.connect(ctx, c, host, port)
	if err != nil {
		socksReply(c, socksCode(err))
		return
	}
	if socksReply(c, socksOK) != nil {
		dst.Close()
		return
	}
	c.established()
	pipe(ctx, c, dst)
}

// socksGreet reads the client's methods and chooses no authentication (a
// client that offers user/password too is served without it: the proxy
// never reads a credential).
func socksGreet(c *clientConn) bool {
	var head [2]byte
	if _, err := io.ReadFull(c.br, head[:]); err != nil {
		return false
	}
	methods := make([]byte, head[1])
	if _, err := io.ReadFull(c.br, methods); err != nil {
		return false
	}
	for _, m := range methods {
		if m == socksNoAuth {
			_, err := c.Write([]byte{socksVersion, socksNoAuth})
			return err == nil
		}
	}
	c.Write([]byte{socksVersion, socksNoAcceptable})
	return false
}

// socksAddr reads the destination of a request; ok is false for an
// address type SOCKS5 does not define or a domain it cannot hold.
func socksAddr(c *clientConn, atyp byte) (string, uint16, bool) {
	var host string
	switch atyp {
	case socksAtypIPv4, socksAtypIPv6:
		b := make([]byte, 16)
		if atyp == socksAtypIPv4 {
			b = b[:4]
		}
		if _, err := io.ReadFull(c.br, b); err != nil {
			return "", 0, false
		}
		a, _ := netip.AddrFromSlice(b)
		host = a.String()
	case socksAtypDomain:
		n, err := c.br.ReadByte()
		if err != nil || n == 0 {
			return "", 0, false
		}
		b := make([]byte, n)
		if _, err := io.ReadFull(c.br, b); err != nil {
			return "", 0, false
		}
		host = string(b)
	default:
		return "", 0, false
	}
	var pb [2]byte
	if _, err := io.ReadFull(c.br, pb[:]); err != nil {
		return "", 0, false
	}
	return host, binary.BigEndian.Uint16(pb[:]), true
}

// socksReply answers a request with code and an unspecified bound address.
func socksReply(c *clientConn, code byte) error {
	_, err := c.Write([]byte{socksVersion, code, 0, socksAtypIPv4, 0, 0, 0, 0, 0, 0})
	return err
}

func socksCode(err error) byte {
	switch {
	case errors.Is(err, errDenied):
		return socksNotAllowed
	case errors.Is(err, syscall.ECONNREFUSED):
		return socksRefused
	case errors.Is(err, syscall.ENETUNREACH):
		return socksNetUnreachable
	case errors.Is(err, syscall.EHOSTUNREACH):
		return socksHostUnreach
	}
	return socksFailure
}
