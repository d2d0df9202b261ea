package policy

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/yieldshell/yieldshell/internal/testdir"
)

// FuzzLoad feeds arbitrary values to every variable: Load either returns a
// usable configuration or an error that names a variable it read, and
// never panics.
func FuzzLoad(f *testing.F) {
	for _, seed := range []string{"", ",", " , ,", "DELETES_FILES", "deletes_files", "50", "-1", "1_000", "+3",
		"(?=x)", `\1`, "[", "TOKEN|KEY", "/tmp:/nonexistent", "0", "yes", "99999999999999999999"} {
		f.Add(seed)
	}
	dir := testdir.New(f)
	f.Fuzz(func(t *testing.T, value string) {
		for _, v := range Vars() {
			cfg, err := Load(func(k string) string {
				if k == v.Name {
					return value
				}
				return ""
			}, dir)
			if err != nil {
				if !strings.Contains(err.Error(), v.Name) {
					t.Fatalf("%s=%q: error does not name the variable: %v", v.Name, value, err)
				}
				continue
			}
			if cfg.Limits.Processes < 1 || cfg.Limits.OutputBytes < 1 || cfg.Limits.BufferBytes < cfg.Limits.OutputBytes ||
				cfg.Times.DefaultYield < 0 || cfg.Times.DefaultYield > cfg.Times.MaxYield || cfg.Times.DefaultTimeout < 0 || cfg.Times.TimeoutGrace < time.Millisecond {
				t.Fatalf("%s=%q: inconsistent configuration %+v", v.Name, value, cfg)
			}
		}
	})
}

// FuzzCheckSideEffects: a declaration is accepted only if every entry is a
// canonical name, NONE stands alone, and nothing declared is blocked; a
// refusal always says which rule refused it.
func FuzzCheckSideEffects(f *testing.F) {
	f.Add("NONE")
	f.Add("NONE,DELETES_FILES")
	f.Add("RUNS_INLINE_CODE")
	f.Add("none")
	f.Add("MAKES_NETWORK_REQUESTS,MAKES_NETWORK_REQUESTS")
	f.Add("")
	cfg, err := Load(func(string) string { return "" }, testdir.New(f))
	if err != nil {
		f.Fatal(err)
	}
	blocked := map[SideEffect]bool{}
	for _, b := range cfg.Rules.Blocked {
		blocked[b] = true
	}
	f.Fuzz(func(t *testing.T, list string) {
		var decl []string
		if list != "" {
			decl = strings.Split(list, ",")
		}
		err := cfg.CheckSideEffects(decl)
		ok := len(decl) > 0
		hasNone := false
		for _, d := range decl {
			s := SideEffect(d)
			ok = ok && s.Valid() && !blocked[s]
			hasNone = hasNone || s == None
		}
		if hasNone {
			for _, d := range decl {
				ok = ok && SideEffect(d) == None
			}
		}
		if (err == nil) != ok {
			t.Fatalf("CheckSideEffects(%q) = %v, want accepted=%v", decl, err, ok)
		}
		if err != nil {
			r, isRefusal := err.(*Refusal)
			if !isRefusal || r.Rule != "side_effects" || !utf8.ValidString(r.Message) {
				t.Fatalf("CheckSideEffects(%q) = %#v, want a side_effects Refusal", decl, err)
			}
		}
	})
}
