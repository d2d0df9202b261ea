package sandbox

import (
	"bytes"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/yieldshell/yieldshell/internal/poll"
	"github.com/yieldshell/yieldshell/internal/testuser"
)

// runConfined runs script with bash under p (nil: unconfined) as cred
// (nil: as the test) and returns its output and denials.
func runConfined(t *testing.T, p *Policy, dir, script string, env []string, cred *syscall.Credential) (string, []Denial) {
	t.Helper()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash not installed")
	}
	cmd := exec.Command(bash, "--norc", "--noprofile", "-c", script)
	cmd.Dir, cmd.Env = dir, append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Setsid: true}
	var m *Monitor
	if p == nil {
		err = cmd.Start()
	} else {
		m, err = Start(p, Probe(), "", cmd.Start)
	}
	if err != nil {
		t.Fatalf("starting: %v", err)
	}
	t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); m.Close() })
	_ = cmd.Wait()
	return out.String(), m.Denied()
}

// account is who the escapes run as.
type account struct {
	name string
	cred *syscall.Credential // nil: the test's own
}

// accounts are root and, when root, a throwaway user made for the test.
func accounts(t *testing.T) []account {
	if os.Getuid() != 0 {
		return []account{{name: "self"}}
	}
	list := []account{{name: "root"}}
	if _, err := exec.LookPath("useradd"); err != nil {
		t.Log("useradd not installed: the escapes run as root only")
		return list
	}
	uid, gid := testuser.New(t)
	return append(list, account{name: "user", cred: &syscall.Credential{Uid: uid, Gid: gid}})
}

// area is a writable root and an outside directory holding a target
// file, both the account's own, so only the sandbox stands in the way.
type area struct{ root, out, target string }

func newArea(t *testing.T, a account) area {
	base, err := os.MkdirTemp("", "ysbox")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	_ = os.Chmod(base, 0o755)
	ar := area{root: filepath.Join(base, "root"), out: filepath.Join(base, "out")}
	ar.target = filepath.Join(ar.out, "target")
	for _, d := range []string{ar.root, ar.out, filepath.Join(ar.root, ".git", "hooks")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	_ = os.WriteFile(ar.target, []byte("orig"), 0o644)
	_ = os.WriteFile(filepath.Join(ar.root, "f"), []byte("f"), 0o644)
	if a.cred != nil {
		_ = filepath.Walk(base, func(p string, _ os.FileInfo, _ error) error {
			return os.Lchown(p, int(a.cred.Uid), int(a.cred.Gid))
		})
	}
	return ar
}

// escaped reports what changed outside the root, or in .git/hooks.
func (ar area) escaped(t *testing.T) string {
	b, err := os.ReadFile(ar.target)
	if err != nil || string(b) != "orig" {
		return "target changed or gone"
	}
	if fi, _ := os.Stat(ar.target); fi.Mode().Perm() != 0o644 {
		return "target's mode changed"
	}
	if n, _ := unix.Listxattr(ar.target, nil); n > 0 {
		return "target got an xattr"
	}
	if ents, _ := os.ReadDir(ar.out); len(ents) != 1 {
		return "a file appeared outside"
	}
	for _, h := range []string{".git/hooks/pre-commit", ".git/config"} {
		if _, err := os.Lstat(filepath.Join(ar.root, h)); err == nil {
			return h + " was written"
		}
	}
	return ""
}

// writeEscapes try to write outside the root; $OUT is outside, $T the
// target there, $ROOT the writable root.
var writeEscapes = []struct{ name, script string }{
	{"open", `echo pwn > "$T"`},
	{"create", `echo pwn > "$OUT/new"`},
	{"rename out", `mv "$T" "$ROOT/t"`},
	{"rename in", `mv "$ROOT/f" "$OUT/new"`},
	{"hard link in", `ln "$T" "$ROOT/h" && echo pwn > "$ROOT/h"`},
	{"hard link out", `ln "$ROOT/f" "$OUT/new"`},
	{"symlink out", `ln -s /etc "$OUT/new"`},
	{"symlink through", `ln -s "$T" "$ROOT/l" && echo pwn > "$ROOT/l"`},
	{"truncate", `truncate -s 0 "$T"`},
	{"mkdir", `mkdir "$OUT/new"`},
	{"chmod", `chmod 600 "$T"`},
	{"xattr", `python3 -c 'import os,sys; os.setxattr(sys.argv[1], "user.x", b"1")' "$T"`},
	{"proc self fd", `exec 3<"$T"; echo pwn > /proc/self/fd/3`},
	{"proc self root", `echo pwn > "/proc/self/root$T"`},
	{"daemonized", `setsid -f bash -c 'echo pwn > "$T"; touch "$ROOT/done"'`},
	{"git hook", `echo pwn > "$ROOT/.git/hooks/pre-commit"`},
	{"git config", `echo pwn > "$ROOT/.git/config"`},
	{"git dir swap", `mkdir -p "$ROOT/x/hooks" && mv "$ROOT/.git" "$ROOT/old" && mv "$ROOT/x" "$ROOT/.git" && echo pwn > "$ROOT/.git/hooks/pre-commit"`},
}

// TestWriteEscapes runs each escape unconfined first (it must work, or
// the case proves nothing) and then confined (it must fail, and the
// denial must be named), as root and as an ordinary user.
func TestWriteEscapes(t *testing.T) {
	for _, a := range accounts(t) {
		for _, c := range writeEscapes {
			t.Run(a.name+"/"+c.name, func(t *testing.T) {
				for _, confined := range []bool{false, true} {
					ar := newArea(t, a)
					env := []string{"OUT=" + ar.out, "T=" + ar.target, "ROOT=" + ar.root}
					var p *Policy
					if confined {
						p = &Policy{Mode: ModeWorkspaceWrite, Network: NetworkOff, Writable: []string{ar.root}}
					}
					out, den := runConfined(t, p, ar.root, c.script, env, a.cred)
					if c.name == "daemonized" {
						poll.Within(5*time.Second, func() bool { _, err := os.Stat(filepath.Join(ar.root, "done")); return err == nil })
					}
					got := ar.escaped(t)
					switch {
					case !confined && got == "" && !strings.Contains(out, "not found"):
						t.Fatalf("unconfined, the escape did nothing (output %q): the case proves nothing", out)
					case confined && got != "":
						t.Fatalf("confined: %s (output %q)", got, out)
					case confined && len(den) == 0:
						t.Errorf("confined: nothing named as denied (output %q)", out)
					}
				}
			})
		}
	}
}

// reachEscapes try to reach out of the sandbox; each prints ESCAPED when
// it got through. $SERVER is the test's pid, $PORT a loopback TCP port
// that accepts.
var reachEscapes = []struct{ name, script string }{
	{"signal the server", `kill -URG "$SERVER" && echo ESCAPED`},
	{"open the server's memory", `exec 3<"/proc/$SERVER/mem" && echo ESCAPED`},
	{"ptrace the server", `python3 -c 'import ctypes,sys; l=ctypes.CDLL(None); sys.exit(l.ptrace(0x4206, int(sys.argv[1]), 0, 0))' "$SERVER" && echo ESCAPED`},
	{"new user namespace", `unshare -U true && echo ESCAPED`},
	{"io_uring", `python3 -c 'import ctypes,sys; l=ctypes.CDLL(None); sys.exit(0 if l.syscall(425, 8, ctypes.create_string_buffer(120)) >= 0 else 1)' && echo ESCAPED`},
	{"tcp", `echo hi > "/dev/tcp/127.0.0.1/$PORT" && echo ESCAPED`},
	{"udp", `echo hi > "/dev/udp/127.0.0.1/$PORT" && echo ESCAPED`},
	{"ipv6", `python3 -c 'import socket; socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)' && echo ESCAPED`},
	{"netlink", `python3 -c 'import socket; socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0)' && echo ESCAPED`},
}

func TestReachEscapes(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	for _, a := range accounts(t) {
		for _, c := range reachEscapes {
			t.Run(a.name+"/"+c.name, func(t *testing.T) {
				if strings.Contains(c.script, "python3") {
					if _, err := exec.LookPath("python3"); err != nil {
						t.Skip("python3 not installed")
					}
				}
				ar := newArea(t, a)
				env := []string{"SERVER=" + strconv.Itoa(os.Getpid()), "PORT=" + port}
				out, _ := runConfined(t, nil, ar.root, c.script, env, a.cred)
				if !strings.Contains(out, "ESCAPED") && a.cred == nil {
					t.Fatalf("unconfined, the escape failed (output %q): the case proves nothing", out)
				}
				p := &Policy{Mode: ModeWorkspaceWrite, Network: NetworkOff, Writable: []string{ar.root}}
				out, den := runConfined(t, p, ar.root, c.script, env, a.cred)
				if strings.Contains(out, "ESCAPED") {
					t.Fatalf("confined, it got through: %q", out)
				}
				t.Logf("%q denied %+v", out, den)
			})
		}
	}
}

// TestFilterFits: a conditional jump reaches 255 instructions at most,
// and every jump lands inside the program.
func TestFilterFits(t *testing.T) {
	for _, net := range []string{NetworkOff, NetworkOn, NetworkHosts} {
		f := buildFilter(&Policy{Network: net})
		if len(f) > 255 {
			t.Fatalf("network %s: %d instructions", net, len(f))
		}
		for i, ins := range f {
			if ins.Code&0x07 == unix.BPF_JMP && (i+1+int(ins.Jt) >= len(f) || i+1+int(ins.Jf) >= len(f)) {
				t.Errorf("network %s: instruction %d jumps out", net, i)
			}
		}
	}
}

// TestFilterCompiledOnce: the programs Probe prepares are the ones a
// start with the same policy would assemble.
func TestFilterCompiledOnce(t *testing.T) {
	s := Probe()
	if !s.Seccomp {
		t.Skip("no seccomp user notification")
	}
	for _, net := range []string{NetworkOff, NetworkOn, NetworkHosts} {
		p := &Policy{Mode: ModeWorkspaceWrite, Network: net, Writable: []string{t.TempDir()}}
		if got, want := s.filter(p), buildFilter(p); !slices.Equal(got, want) {
			t.Errorf("network %s: the compiled filter differs from the assembled one", net)
		}
	}
}

// TestExistingNames: making a name that exists outside the root fails
// with EEXIST, as without a sandbox (programs ignore it), and is not a
// denial.
func TestExistingNames(t *testing.T) {
	ar := newArea(t, account{name: "self"})
	p := &Policy{Mode: ModeWorkspaceWrite, Network: NetworkOff, Writable: []string{ar.root}}
	out, den := runConfined(t, p, ar.root, `mkdir "$OUT" 2>&1; ln -s x "$T" 2>&1`, []string{"OUT=" + ar.out, "T=" + ar.target}, nil)
	if strings.Count(out, "File exists") != 2 || len(den) != 0 {
		t.Errorf("output %q, denied %+v; want File exists twice and no denial", out, den)
	}
}

// TestSetuidHelper: a setuid-root program run by an ordinary user in the
// sandbox gains nothing (no_new_privs), so it cannot write a root-owned
// file outside the root, which it can unconfined.
func TestSetuidHelper(t *testing.T) {
	var user *account
	for _, a := range accounts(t) {
		if a.cred != nil {
			user = &a
		}
	}
	if user == nil {
		t.Skip("needs root and useradd")
	}
	for _, confined := range []bool{false, true} {
		ar := newArea(t, *user)
		helper := suidCopy(t, "tee", filepath.Dir(ar.root))
		_ = os.Chown(ar.target, 0, 0)
		var p *Policy
		if confined {
			p = &Policy{Mode: ModeWorkspaceWrite, Network: NetworkOff, Writable: []string{ar.root}}
		}
		// A setuid tee writes the root-owned target; a setuid id says
		// whose rights it runs with (id -u: the effective uid).
		out, _ := runConfined(t, p, ar.root, `echo pwn | "$H" "$T"; "$I" -u`,
			[]string{"H=" + helper, "T=" + ar.target, "I=" + suidCopy(t, "id", filepath.Dir(ar.root))}, user.cred)
		got := ar.escaped(t)
		root := strings.HasSuffix(out, "\n0\n")
		if confined == (got != "") || confined == root {
			t.Errorf("confined %v: %q, effective uid 0: %v (output %q)", confined, got, root, out)
		}
	}
}

// suidCopy copies program into dir as a setuid-root program.
func suidCopy(t *testing.T, program, dir string) string {
	path, err := exec.LookPath(program)
	if err != nil {
		t.Skipf("%s not installed", program)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(dir, "suid-"+filepath.Base(path))
	if err := os.WriteFile(dst, b, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dst, 0o755|os.ModeSetuid); err != nil {
		t.Fatal(err)
	}
	return dst
}
