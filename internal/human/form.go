package human

import "bytes"

// form is a page's POST body: the action and, on a secret page, the
// secret. Both alias the body's buffer.
type form struct {
	action    []byte
	secret    []byte
	hasSecret bool
}

// parseForm reads an application/x-www-form-urlencoded body, decoding each
// field in place, so the secret exists in the body's buffer only (the
// standard parser makes strings, which cannot be zeroed). Fields other
// than action and secret are ignored; a repeated or malformed field, or
// one that is not valid percent-encoding, fails.
func parseForm(body []byte) (form, bool) {
	var f form
	var seenAction bool
	for len(body) > 0 {
		var pair []byte
		if i := bytes.IndexByte(body, '&'); i >= 0 {
			pair, body = body[:i], body[i+1:]
		} else {
			pair, body = body, nil
		}
		if len(pair) == 0 {
			continue
		}
		key, val, _ := bytes.Cut(pair, []byte{'='})
		key, ok := unescape(key)
		if !ok {
			return form{}, false
		}
		val, ok = unescape(val)
		if !ok {
			return form{}, false
		}
		switch string(key) {
		case "action":
			if seenAction {
				return form{}, false
			}
			f.action, seenAction = val, true
		case "secret":
			if f.hasSecret {
				return form{}, false
			}
			f.secret, f.hasSecret = val, true
		}
	}
	return f, true
}

// unescape decodes query escaping ('+' is a space) in place and returns
// the decoded prefix of b.
func unescape(b []byte) ([]byte, bool) {
	n := 0
	for i := 0; i < len(b); i++ {
		switch c := b[i]; c {
		case '+':
			b[n] = ' '
		case '%':
			if i+2 >= len(b) {
				return nil, false
			}
			hi, ok1 := unhex(b[i+1])
			lo, ok2 := unhex(b[i+2])
			if !ok1 || !ok2 {
				return nil, false
			}
			b[n] = hi<<4 | lo
			i += 2
		default:
			b[n] = c
		}
		n++
	}
	return b[:n], true
}

func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}
