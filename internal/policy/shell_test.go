package policy

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// The default shell is found once, at Load: the operator's, else bash,
// else /bin/sh; Windows keeps cmd.exe (named /bin/sh to the engine).
func TestResolveShell(t *testing.T) {
	// installed maps what a lookup asks for to what it finds.
	type installed map[string]string
	tests := []struct {
		name    string
		value   string
		goos    string
		have    installed
		want    string
		wantErr bool
	}{
		{"bash in /bin", "", "linux", installed{"/bin/bash": "/bin/bash", "bash": "/usr/bin/bash"}, "/bin/bash", false},
		{"bash on PATH only (NixOS)", "", "linux", installed{"bash": "/run/current-system/sw/bin/bash"}, "/run/current-system/sw/bin/bash", false},
		{"no bash: dash", "", "linux", installed{"sh": "/usr/bin/sh"}, "/bin/sh", false},
		{"a bash found relative to PATH is not taken", "", "linux", installed{"bash": "bin/bash"}, "/bin/sh", false},
		{"macOS", "", "darwin", installed{"/bin/bash": "/bin/bash"}, "/bin/bash", false},
		{"Windows keeps cmd.exe", "", "windows", installed{"bash": `C:\Program Files\Git\bin\bash.exe`}, "/bin/sh", false},
		{"the operator's, by name", "zsh", "linux", installed{"/bin/bash": "/bin/bash", "zsh": "/usr/bin/zsh"}, "/usr/bin/zsh", false},
		{"the operator's /bin/sh beside bash", "/bin/sh", "linux", installed{"/bin/bash": "/bin/bash", "/bin/sh": "/bin/sh"}, "/bin/sh", false},
		{"the operator's, on Windows", "pwsh", "windows", installed{"pwsh": `C:\pwsh\pwsh.exe`}, `C:\pwsh\pwsh.exe`, false},
		{"the operator's, missing", "fish", "linux", installed{"/bin/bash": "/bin/bash"}, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var asked []string
			lookPath := func(name string) (string, error) {
				asked = append(asked, name)
				if p, ok := tt.have[name]; ok {
					return p, nil
				}
				return "", exec.ErrNotFound
			}
			got, err := resolveShell(tt.value, tt.goos, lookPath)
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Fatalf("resolveShell(%q, %s) = %q, %v; want %q (error: %t)", tt.value, tt.goos, got, err, tt.want, tt.wantErr)
			}
			if tt.goos == "windows" && tt.value == "" && len(asked) > 0 {
				t.Errorf("looked up %q on Windows, where the default is cmd.exe", asked)
			}
		})
	}
}

func TestLoadShell(t *testing.T) {
	dir := tempDir(t)
	if runtime.GOOS != "windows" {
		c := mustLoad(t, map[string]string{envShell: "/bin/sh"}, dir)
		if c.Shell != "/bin/sh" || c.DefaultShell() != "/bin/sh" {
			t.Errorf("Shell = %q, DefaultShell = %q, want /bin/sh", c.Shell, c.DefaultShell())
		}
	}
	_, err := Load(envOf(map[string]string{envShell: "no-such-shell-here"}), dir)
	if err == nil || !strings.Contains(err.Error(), envShell) || !strings.Contains(err.Error(), "not found") {
		t.Errorf("Load with a missing shell: %v", err)
	}
	if runtime.GOOS != "windows" {
		// A relative path that exists here would be looked up again in
		// each command's cwd.
		if err := os.WriteFile(filepath.Join(dir, "sh"), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		t.Chdir(dir)
		_, err = Load(envOf(map[string]string{envShell: "./sh"}), dir)
		if err == nil || !strings.Contains(err.Error(), envShell) || !strings.Contains(err.Error(), "relative") {
			t.Errorf("Load with a relative path: %v", err)
		}
	}
	c := mustLoad(t, nil, dir)
	want := SystemShell // on Windows too: cmd.exe, which the engine runs for /bin/sh
	if runtime.GOOS != "windows" {
		if p, err := exec.LookPath("/bin/bash"); err == nil {
			want = p
		} else if p, err := exec.LookPath("bash"); err == nil {
			want = p
		}
	}
	if c.Shell != want {
		t.Errorf("default Shell = %q, want %q", c.Shell, want)
	}
	if (&Config{}).DefaultShell() != SystemShell {
		t.Errorf("a zero Config's DefaultShell is not /bin/sh")
	}
}

func TestShellArgs(t *testing.T) {
	tests := []struct {
		shell     string
		isDefault bool
		want      []string
	}{
		{"/bin/bash", true, []string{"/bin/bash", "--norc", "--noprofile", "-c", "ls"}},
		{`C:\Git\bin\bash.exe`, true, []string{`C:\Git\bin\bash.exe`, "--norc", "--noprofile", "-c", "ls"}},
		{"/bin/bash", false, []string{"/bin/bash", "-c", "ls"}}, // the agent's shell: as ever
		{"/bin/sh", true, []string{"/bin/sh", "-c", "ls"}},
		{"/usr/bin/zsh", true, []string{"/usr/bin/zsh", "-c", "ls"}},
	}
	for _, tt := range tests {
		if got := ShellArgs(tt.shell, "ls", tt.isDefault); !slices.Equal(got, tt.want) {
			t.Errorf("ShellArgs(%q, default %t) = %q, want %q", tt.shell, tt.isDefault, got, tt.want)
		}
	}
}
