package roots

import (
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"runtime"
	"strings"
)

// maxURI bounds the length of one root's URI: no path needs more, and a
// longer one is not worth parsing.
const maxURI = 4096

// Parse turns a root's file:// URI into an absolute path of this system,
// cleaned but not resolved (Resolve follows links). It refuses, with the
// reason, anything else: another scheme, a host other than localhost, a
// relative or opaque path, a query or fragment, user information, an
// encoded separator or NUL, "." or ".." segments.
func Parse(uri string) (string, error) {
	if len(uri) > maxURI {
		return "", fmt.Errorf("longer than %d bytes", maxURI)
	}
	if strings.ContainsAny(uri, "\x00\\") || strings.ContainsFunc(uri, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return "", errors.New("contains a control character or backslash")
	}
	u, err := url.Parse(uri)
	if err != nil {
		return "", errors.New("not a URI")
	}
	switch {
	case !strings.EqualFold(u.Scheme, "file"):
		return "", errors.New("not a file:// URI")
	case u.Opaque != "":
		return "", errors.New("not an absolute file:// URI (file:relative)")
	case u.User != nil:
		return "", errors.New("has user information")
	case u.Host != "" && !strings.EqualFold(u.Host, "localhost"):
		return "", fmt.Errorf("names host %q; only local paths (no host, or localhost) are roots", u.Host)
	case u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || strings.Contains(uri, "#"):
		return "", errors.New("has a query or fragment")
	}
	raw := u.EscapedPath()
	if lower := strings.ToLower(raw); strings.Contains(lower, "%2f") || strings.Contains(lower, "%5c") || strings.Contains(lower, "%00") {
		return "", errors.New("has an encoded separator or NUL")
	}
	p := u.Path // percent-decoded
	if strings.ContainsRune(p, 0) || strings.ContainsFunc(p, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return "", errors.New("has a control character")
	}
	if !strings.HasPrefix(p, "/") {
		return "", errors.New("has no absolute path")
	}
	for seg := range strings.SplitSeq(p[1:], "/") {
		if seg == "." || seg == ".." {
			return "", errors.New(`has a "." or ".." segment`)
		}
	}
	if runtime.GOOS == "windows" {
		// file:///C:/Users/me is C:\Users\me.
		if len(p) >= 3 && p[2] == ':' {
			p = p[1:]
		}
		if !filepath.IsAbs(filepath.FromSlash(p)) {
			return "", errors.New("names no drive")
		}
	}
	return filepath.Clean(filepath.FromSlash(p)), nil
}
