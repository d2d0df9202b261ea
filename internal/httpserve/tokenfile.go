package httpserve

import (
	"fmt"
	"strings"
)

// The rule for a bearer-token file (see docs/http.md, "The token file"):
//
//   - Refused: a file that a user other than root and the server's own
//     user could have written or replaced — owned by such a user, writable
//     by others or by a group other than the server's primary group (a
//     user private group, as Debian and Ubuntu give every user, counts as
//     the user's own), or reached through a directory or symlink that
//     such a user could change — unless it sits on a read-only mount (a
//     Docker or Compose secret, a Kubernetes Secret volume, a :ro bind
//     mount), where nobody below root can change it.
//   - Accepted with a warning: a file that users other than the server's
//     own can read (others, or a group the server is not in), as Docker
//     secrets (0444) and Secret volumes without fsGroup (0644) are. Anyone
//     who reads the token can run commands as the server's user.
//   - Accepted: the rest (0600 or 0400 of the server's user or root; 0440
//     of root and the server's group, as a Secret volume with fsGroup).

// tokenFile is what reading a token file found.
type tokenFile struct {
	token   string
	warning string // why the token may not be secret; "" when it is
}

// serverUser is who the server runs as.
type serverUser struct {
	uid, gid int   // effective user and primary group
	groups   []int // every group it is in, gid included
}

// readTokenFile reads and checks the token file at path for a server
// running as u.
func readTokenFile(path string, u serverUser) (tokenFile, error) {
	b, warning, err := readChecked(path, u)
	if err != nil {
		return tokenFile{}, fmt.Errorf("reading the bearer token: %w", err)
	}
	tok := strings.TrimSpace(string(b))
	if tok == "" {
		return tokenFile{}, fmt.Errorf("reading the bearer token: %s is empty", path)
	}
	return tokenFile{token: tok, warning: warning}, nil
}
