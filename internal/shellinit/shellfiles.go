package shellinit

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/yieldshell/yieldshell/internal/safedir"
)

// What every shell integration (bash, zsh, fish) shares.

// ensure makes path a private file of this user holding content, after
// checking that its directory, and the path to it, only this user can
// change (safedir). It runs every time a shell is started with the file:
// a tmp cleaner may have removed the directory while the server ran, and
// another user, who sees its path in ps, recreated it and planted a file
// for the next shell to run.
func ensure(path, content string) error {
	dir := filepath.Dir(path)
	if err := safedir.PrivateDir(dir); err != nil {
		return err
	}
	return safedir.EnsureFile(dir, filepath.Base(path), content)
}

// PrepareDir makes dir, the directory of the integration files, ready for
// a shell to be started with them: created 0700 if it is missing, and
// checked to be a private directory of this user on a safe path. An error
// means the directory cannot be trusted: use a new one.
func PrepareDir(dir string) error {
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("creating the shell-integration directory: %w", err)
	}
	if err := safedir.PrivateDir(dir); err != nil {
		return fmt.Errorf("checking the shell-integration directory: %w", err)
	}
	return nil
}

// shellQuote quotes s for sh.
func shellQuote(s string) string {
	if s != "" && !strings.ContainsFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || slices.Contains([]rune("/._-+=:,@"), r))
	}) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
