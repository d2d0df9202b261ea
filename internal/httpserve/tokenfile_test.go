//go:build linux

package httpserve

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/yieldshell/yieldshell/internal/testuser"
)

// The server's user in these tests, as in the container image, and
// another non-root user.
const (
	serverUID = 10001
	otherUID  = 1000
)

const testToken = "token-from-the-file-0123456789"

// server is the server's user in these tests: uid and primary group 10001.
var server = serverUser{uid: serverUID, gid: serverUID, groups: []int{serverUID}}

// node is one file system entry a case lays out under its directory.
type node struct {
	path     string // relative to the case's directory
	mode     os.FileMode
	uid, gid int
	link     string // a symlink to this target
	dir      bool
	data     string // a file's content; testToken when ""
}

// layout makes the nodes under dir, as root.
func layout(t *testing.T, dir string, nodes []node) {
	t.Helper()
	for _, n := range nodes {
		p := filepath.Join(dir, n.path)
		var err error
		switch {
		case n.link != "":
			err = os.Symlink(n.link, p)
		case n.dir:
			err = os.Mkdir(p, 0o700)
		default:
			data := n.data
			if data == "" {
				data = testToken + "\n"
			}
			err = os.WriteFile(p, []byte(data), 0o600)
		}
		if err == nil {
			err = os.Lchown(p, n.uid, n.gid)
		}
		if err == nil && n.link == "" {
			err = os.Chmod(p, n.mode) // after chown, which clears setuid/setgid bits
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// requireRoot skips a test that has to hand files to other users.
func requireRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("skipping: making files of other users needs root")
	}
}

// TestTokenFileModes: the token file rule, each case with real files as
// the server running as uid 10001 meets them. Docker secrets, Kubernetes
// Secret volumes (symlinks into ..data) and files readable by others are
// accepted, the last with a warning; anything another user could have
// written or replaced is refused.
func TestTokenFileModes(t *testing.T) {
	requireRoot(t)
	k8s := func(mode os.FileMode, gid int) []node {
		// The layout of a Secret volume: token -> ..data/token, ..data ->
		// a timestamped directory, everything root's.
		return []node{
			{path: "vol", dir: true, mode: 0o1777 | os.ModeSticky, gid: gid},
			{path: "vol/..2026_01_01_00_00_00.1", dir: true, mode: 0o755, gid: gid},
			{path: "vol/..2026_01_01_00_00_00.1/token", mode: mode, gid: gid},
			{path: "vol/..data", link: "..2026_01_01_00_00_00.1"},
			{path: "vol/token", link: "..data/token"},
		}
	}
	for _, tc := range []struct {
		name      string
		nodes     []node
		file      string // the path handed to the server; "token" when ""
		wantWarn  string // "" for none
		wantError string
	}{
		{name: "own_0600", nodes: []node{{path: "token", mode: 0o600, uid: serverUID, gid: serverUID}}},
		{name: "own_0400", nodes: []node{{path: "token", mode: 0o400, uid: serverUID, gid: serverUID}}},
		{name: "own_0640_own_group", nodes: []node{{path: "token", mode: 0o640, uid: serverUID, gid: serverUID}}},
		{name: "own_0644", nodes: []node{{path: "token", mode: 0o644, uid: serverUID, gid: serverUID}}, wantWarn: "every user of this machine can read"},
		{name: "docker_secret_root_0444", nodes: []node{{path: "token", mode: 0o444}}, wantWarn: "every user of this machine can read"},
		{name: "root_0640_foreign_group", nodes: []node{{path: "token", mode: 0o640, gid: 2000}}, wantWarn: "group 2000 can read"},
		{name: "kubernetes_secret_0644", nodes: k8s(0o644, 0), file: "vol/token", wantWarn: "every user of this machine can read"},
		{name: "kubernetes_secret_0440_fsgroup", nodes: k8s(0o440, serverUID), file: "vol/token"},
		{name: "sticky_dir_own_file", nodes: []node{{path: "tmp", dir: true, mode: 0o777 | os.ModeSticky}, {path: "tmp/token", mode: 0o600, uid: serverUID}}, file: "tmp/token"},
		{name: "own_primary_group_writable", nodes: []node{{path: "d", dir: true, mode: 0o775, uid: serverUID, gid: serverUID}, {path: "d/token", mode: 0o660, uid: serverUID, gid: serverUID}}, file: "d/token"},
		{name: "relative_dots", nodes: []node{{path: "d", dir: true, mode: 0o755}, {path: "token", mode: 0o600, uid: serverUID}}, file: "d/../d/./../token"},

		{name: "other_user_owns_file", nodes: []node{{path: "token", mode: 0o600, uid: otherUID}}, wantError: "the token file .* belongs to uid 1000"},
		{name: "group_writable", nodes: []node{{path: "token", mode: 0o660, uid: serverUID, gid: 2000}}, wantError: "writable by group 2000"},
		{name: "world_writable", nodes: []node{{path: "token", mode: 0o666, uid: serverUID}}, wantError: "writable by every user"},
		{name: "other_user_owns_directory", nodes: []node{{path: "d", dir: true, mode: 0o755, uid: otherUID}, {path: "d/token", mode: 0o600, uid: serverUID}}, file: "d/token", wantError: "directory .* belongs to uid 1000"},
		{name: "world_writable_directory", nodes: []node{{path: "d", dir: true, mode: 0o777}, {path: "d/token", mode: 0o600, uid: serverUID}}, file: "d/token", wantError: "directory .* writable by every user"},
		{name: "other_users_symlink_in_sticky_dir", nodes: []node{{path: "tmp", dir: true, mode: 0o777 | os.ModeSticky}, {path: "token", mode: 0o600, uid: serverUID}, {path: "tmp/link", link: "../token", uid: otherUID}}, file: "tmp/link", wantError: "symlink .* belongs to uid 1000"},
		{name: "kubernetes_secret_group_writable", nodes: k8s(0o660, 2000), file: "vol/token", wantError: "writable by group 2000"},
		{name: "not_a_file", nodes: []node{{path: "d", dir: true, mode: 0o700}}, file: "d", wantError: "not a regular file"},
		{name: "empty", nodes: []node{{path: "token", mode: 0o600, data: "\n"}}, wantError: "is empty"},
		{name: "symlink_loop", nodes: []node{{path: "a", link: "b"}, {path: "b", link: "a"}}, file: "a", wantError: "more than 40 symlinks"},
		{name: "missing", file: "nothing-here", wantError: "no such file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			layout(t, dir, tc.nodes)
			file := tc.file
			if file == "" {
				file = "token"
			}
			tf, err := readTokenFile(filepath.Join(dir, file), server)
			if tc.wantError != "" {
				if err == nil || !matches(tc.wantError, err.Error()) {
					t.Fatalf("error %v, want one matching %q", err, tc.wantError)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tf.token != testToken {
				t.Errorf("token %q, want %q", tf.token, testToken)
			}
			if tc.wantWarn == "" && tf.warning != "" || !strings.Contains(tf.warning, tc.wantWarn) {
				t.Errorf("warning %q, want %q", tf.warning, tc.wantWarn)
			}
		})
	}
}

// matches reports whether s matches the pattern, where ".*" stands for
// anything.
func matches(pattern, s string) bool {
	for part := range strings.SplitSeq(pattern, ".*") {
		i := strings.Index(s, part)
		if i < 0 {
			return false
		}
		s = s[i+len(part):]
	}
	return true
}

// helperEnv makes the test binary play a helper instead of running tests.
const helperEnv = "YIELDSHELL_TOKENFILE_HELPER"

// helperResult is what a helper reports on stdout.
type helperResult struct {
	Token, Warning, Error string
}

// runHelper runs this test binary as a helper for test name in mode,
// with attr for its process, and returns what it reports.
func runHelper(t *testing.T, exe, name, mode string, attr *syscall.SysProcAttr, args ...string) helperResult {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), exe, append([]string{"-test.run=^" + name + "$"}, args...)...)
	cmd.Env = append(os.Environ(), helperEnv+"="+mode)
	cmd.SysProcAttr = attr
	out, err := cmd.Output()
	var r helperResult
	if jerr := json.Unmarshal(out, &r); jerr != nil {
		t.Fatalf("helper %s: %v (output %q, %v)", mode, err, out, jerr)
	}
	return r
}

// helperReport writes r and ends the helper.
func helperReport(tf tokenFile, err error) {
	r := helperResult{Token: tf.token, Warning: tf.warning}
	if err != nil {
		r.Error = err.Error()
	}
	json.NewEncoder(os.Stdout).Encode(r)
	os.Exit(0)
}

// TestTokenFileReadOnlyMount: on a read-only mount (a :ro bind mount, a
// Compose secret) a file of another user, in a directory everybody could
// write were it writable, is accepted, with the warning that its owner can
// read it; the same layout on a writable mount is refused. The mount is
// made in a mount namespace of a helper process, so nobody else sees it.
func TestTokenFileReadOnlyMount(t *testing.T) {
	if mode := os.Getenv(helperEnv); mode != "" {
		if mode != "mount" {
			t.Skip("another helper")
		}
		dir := os.Args[len(os.Args)-1]
		if err := unix.Mount("none", dir, "tmpfs", 0, "mode=0777"); err != nil {
			helperReport(tokenFile{}, fmt.Errorf("mounting: %w", err))
		}
		p := filepath.Join(dir, "token")
		err := os.WriteFile(p, []byte(testToken), 0o644)
		if err == nil {
			err = os.Chown(p, otherUID, otherUID)
		}
		if err != nil {
			helperReport(tokenFile{}, err)
		}
		if _, err := readTokenFile(p, server); err == nil {
			helperReport(tokenFile{}, fmt.Errorf("writable mount: accepted"))
		}
		if err := unix.Mount("none", dir, "", unix.MS_REMOUNT|unix.MS_RDONLY, ""); err != nil {
			helperReport(tokenFile{}, fmt.Errorf("remounting read-only: %w", err))
		}
		tf, err := readTokenFile(p, server)
		helperReport(tf, err)
	}
	requireRoot(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	r := runHelper(t, exe, "TestTokenFileReadOnlyMount", "mount",
		&syscall.SysProcAttr{Unshareflags: syscall.CLONE_NEWNS}, t.TempDir())
	if strings.HasPrefix(r.Error, "mounting") {
		t.Skipf("skipping: no tmpfs mount here: %s", r.Error)
	}
	if r.Error != "" || r.Token != testToken {
		t.Fatalf("read-only mount: %+v", r)
	}
	for _, want := range []string{"every user of this machine can read", "mode 0644"} {
		if !strings.Contains(r.Warning, want) {
			t.Errorf("warning %q, want %q", r.Warning, want)
		}
	}
}

// TestTokenFileUnreadable: a 0600 file the server's uid cannot read (as a
// host user's file in a container) fails with the uid and the ways to hand the
// file over. The helper runs as uid 10001 from a copy of this test binary
// that uid can execute.
func TestTokenFileUnreadable(t *testing.T) {
	if mode := os.Getenv(helperEnv); mode != "" {
		if mode != "unreadable" {
			t.Skip("another helper")
		}
		tf, err := readTokenFile(os.Args[len(os.Args)-1], currentUser())
		helperReport(tf, err)
	}
	requireRoot(t)
	dir := t.TempDir()
	for d := dir; d != os.TempDir() && d != "/"; d = filepath.Dir(d) {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	copyExe := testuser.CopyTestBinary(t) // where uid 10001 may run it
	// Root's here; in a container, the host user's file on a :ro bind
	// mount, which passes the ownership check and fails the same way.
	layout(t, dir, []node{{path: "token", mode: 0o600}})
	r := runHelper(t, copyExe, "TestTokenFileUnreadable", "unreadable",
		&syscall.SysProcAttr{Credential: &syscall.Credential{Uid: serverUID, Gid: serverUID}}, filepath.Join(dir, "token"))
	for _, want := range []string{"permission denied", "runs as uid " + strconv.Itoa(serverUID), "chown 10001", "Secret volume"} {
		if !strings.Contains(r.Error, want) {
			t.Errorf("error %q, want %q", r.Error, want)
		}
	}
}
