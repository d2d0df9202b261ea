package main

import (
	"fmt"
	"strings"
)

// The rule for a bearer-token file (see docs/http.md, "The token file"):
//
//   - Refused: a file that a user other than root and the server's own
//     user could have written or replaced — owned by such a user, writable
//     by group or others, or reached through a directory or symlink that
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

// readTokenFile reads and checks the token file at path for a server
// running as uid with groups gids.
func readTokenFile(path string, uid int, gids []int) (tokenFile, error) {
	b, warning, err := readChecked(path, uid, gids)
	if err != nil {
		return tokenFile{}, fmt.Errorf("reading the bearer token: %w", err)
	}
	tok := strings.TrimSpace(string(b))
	if tok == "" {
		return tokenFile{}, fmt.Errorf("reading the bearer token: %s is empty", path)
	}
	return tokenFile{token: tok, warning: warning}, nil
}
