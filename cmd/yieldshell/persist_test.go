//go:build unix

package main

import (
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestCheckPeer(t *testing.T) {
	self := uint32(os.Getuid())
	if err := checkPeer(self, self); err != nil {
		t.Errorf("own uid refused: %v", err)
	}
	for _, other := range []uint32{self + 1, 0, 65534} {
		if other == self {
			continue
		}
		if err := checkPeer(other, self); err == nil || !strings.Contains(err.Error(), "refusing") {
			t.Errorf("uid %d admitted by a server of uid %d: %v", other, self, err)
		}
	}
}

// TestAdmitPeer reads real credentials over a socket pair: the same uid is
// admitted, and a server that runs as another uid refuses it.
func TestAdmitPeer(t *testing.T) {
	dir := t.TempDir()
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: filepath.Join(dir, "s"), Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	c, err := net.DialUnix("unix", nil, ln.Addr().(*net.UnixAddr))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	sc, err := ln.AcceptUnix()
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	self := uint32(os.Getuid())
	if err := admitPeer(sc, self); err != nil {
		t.Errorf("same uid refused: %v", err)
	}
	if err := admitPeer(sc, self+1); err == nil {
		t.Error("a connection from another uid was admitted")
	}
}

func TestRuntimeDir(t *testing.T) {
	base := t.TempDir()
	env := func(k string) string {
		if k == "XDG_RUNTIME_DIR" {
			return base
		}
		return ""
	}
	dir, err := runtimeDir(env)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(dir)
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("runtime dir %s: %v %v, want mode 0700", dir, fi.Mode(), err)
	}
	if again, err := runtimeDir(env); err != nil || again != dir {
		t.Errorf("second call: %q %v", again, err)
	}
	if err := checkPrivateDir(dir, fi, uint32(os.Getuid())+1); err == nil || !strings.Contains(err.Error(), "belongs to uid") {
		t.Errorf("a directory of another owner was accepted: %v", err)
	}

	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := runtimeDir(env); err == nil || !strings.Contains(err.Error(), "chmod 700") {
		t.Errorf("a directory open to others was accepted: %v", err)
	}

	// A symlink planted where the directory should be.
	base2 := t.TempDir()
	if err := os.Symlink(dir, filepath.Join(base2, "yieldshell")); err != nil {
		t.Fatal(err)
	}
	if _, err := runtimeDir(func(string) string { return base2 }); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("a symlink was accepted: %v", err)
	}
}

func TestLoadIdle(t *testing.T) {
	for _, c := range []struct {
		v    string
		want string
		ok   bool
	}{{"", "30m0s", true}, {"0", "0s", true}, {"1500", "1.5s", true}, {"-1", "", false}, {"soon", "", false}} {
		d, err := loadIdle(func(string) string { return c.v })
		if (err == nil) != c.ok || c.ok && d.String() != c.want {
			t.Errorf("loadIdle(%q) = %v, %v; want %s ok=%v", c.v, d, err, c.want, c.ok)
		}
		if err != nil && !strings.Contains(err.Error(), idleEnv) {
			t.Errorf("the error does not name %s: %v", idleEnv, err)
		}
	}
}

func TestEnvBool(t *testing.T) {
	for v, want := range map[string]bool{"": false, "0": false, "off": false, "1": true, "TRUE": true, " yes ": true, "on": true} {
		got, err := envBool(persistEnv, func(string) string { return v })
		if err != nil || got != want {
			t.Errorf("envBool(%q) = %v, %v; want %v", v, got, err, want)
		}
	}
	if _, err := envBool(persistEnv, func(string) string { return "maybe" }); err == nil || !strings.Contains(err.Error(), persistEnv) {
		t.Errorf("envBool(maybe): %v, want an error naming %s", err, persistEnv)
	}
}

func TestSettingsDiffer(t *testing.T) {
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	a := settings(env("YIELDSHELL_MAX_PROCESSES", "7", "YIELDSHELL_TAG", "x", "HOME", "/root"))
	if len(a) != 1 || a["YIELDSHELL_MAX_PROCESSES"] == "" || a["YIELDSHELL_MAX_PROCESSES"] == "7" {
		t.Errorf("settings = %v, want only YIELDSHELL_MAX_PROCESSES, hashed", a)
	}
	b := settings(env("YIELDSHELL_MAX_PROCESSES", "8", idleEnv, "1000"))
	if got := settingsDiffer(a, b); !slices.Equal(got, []string{"YIELDSHELL_MAX_PROCESSES", idleEnv}) {
		t.Errorf("settingsDiffer = %v", got)
	}
	if got := settingsDiffer(a, a); len(got) != 0 {
		t.Errorf("settingsDiffer(a, a) = %v", got)
	}
}
