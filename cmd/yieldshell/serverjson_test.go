//go:build unix

package main

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestServerJSON keeps server.json, the entry for the MCP registry, true
// to --help: the same environment variables in the same order, with the
// same descriptions, and the same defaults where the default is a value
// (not a phrase such as "server's working directory").
func TestServerJSON(t *testing.T) {
	b, err := os.ReadFile("../../server.json")
	if err != nil {
		t.Fatal(err)
	}
	type envVar struct {
		Name, Description string
		Default           *string
	}
	var doc struct {
		Name, Version string
		Packages      []struct {
			RegistryType, Identifier, Version string
			Transport                         struct{ Type string }
			EnvironmentVariables              []envVar
		}
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Packages) != 1 {
		t.Fatalf("%d packages, want the npm one", len(doc.Packages))
	}
	pkg := doc.Packages[0]
	if pkg.RegistryType != "npm" || pkg.Identifier != "yieldshell" || pkg.Transport.Type != "stdio" || pkg.Version != doc.Version {
		t.Errorf("package %+v (server version %s)", pkg, doc.Version)
	}

	var help strings.Builder
	usage(&help)
	_, vars, ok := strings.Cut(help.String(), "Environment variables:\n")
	if !ok {
		t.Fatal("--help lists no environment variables")
	}
	entry := regexp.MustCompile(`(?m)^  (\S+) \(default: (.*)\)\n      (.*)$`)
	var want []envVar
	for _, m := range entry.FindAllStringSubmatch(vars, -1) {
		v := envVar{Name: m[1], Description: m[3]}
		if def := m[2]; !strings.ContainsAny(def, " (") {
			v.Default = &def
		}
		want = append(want, v)
	}
	got := pkg.EnvironmentVariables
	for i := range max(len(got), len(want)) {
		switch {
		case i >= len(got):
			t.Errorf("server.json lacks %s", want[i].Name)
		case i >= len(want):
			t.Errorf("server.json has %s, which --help does not list", got[i].Name)
		case got[i].Name != want[i].Name || got[i].Description != want[i].Description ||
			(got[i].Default == nil) != (want[i].Default == nil) ||
			got[i].Default != nil && *got[i].Default != *want[i].Default:
			t.Errorf("server.json entry %d:\n%s\nwant, from --help:\n%s", i, show(got[i]), show(want[i]))
		}
	}
}

func show(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
