package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// repoRoot is the repository, seen from this package's directory.
const repoRoot = "../.."

// TestDocLinks: every relative link in the Markdown documents, and every
// docs/*.md the deploy files and the Dockerfile mention, names a file
// that exists, and a #fragment names a heading of it.
func TestDocLinks(t *testing.T) {
	docs, err := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	docs = append(docs, filepath.Join(repoRoot, "README.md"), filepath.Join(repoRoot, "npm", "yieldshell", "README.md"))
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	for _, doc := range docs {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range link.FindAllStringSubmatch(string(b), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, frag, _ := strings.Cut(target, "#")
			path := doc
			if file != "" {
				path = filepath.Join(filepath.Dir(doc), file)
			}
			checkLink(t, doc, target, path, frag)
		}
	}
	mention := regexp.MustCompile(`docs/[a-z-]+\.md`)
	for _, f := range []string{"Dockerfile", "deploy/kubernetes.yaml"} {
		b, err := os.ReadFile(filepath.Join(repoRoot, f))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range mention.FindAllString(string(b), -1) {
			checkLink(t, f, m, filepath.Join(repoRoot, m), "")
		}
	}
}

// checkLink fails when path does not exist or has no heading for frag.
func checkLink(t *testing.T, doc, target, path, frag string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		if fi, serr := os.Stat(path); serr == nil && fi.IsDir() {
			return
		}
		t.Errorf("%s: link %s: %v", doc, target, err)
		return
	}
	if frag == "" || !strings.HasSuffix(path, ".md") {
		return
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if h, ok := strings.CutPrefix(strings.TrimLeft(line, "#"), " "); ok && strings.HasPrefix(line, "#") && slug(h) == frag {
			return
		}
	}
	t.Errorf("%s: link %s: no heading %q in %s", doc, target, frag, path)
}

// slug is a heading's anchor as GitHub makes it.
func slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// TestDeployFiles: the Dockerfile names its images in full (podman
// refuses short names) and its health check follows the address the
// server listens on; the Kubernetes manifest meets the "restricted" Pod
// Security Standard and hands the token over in a mode the token file
// rule accepts without a warning, to the image's user.
func TestDeployFiles(t *testing.T) {
	read := func(f string) string {
		b, err := os.ReadFile(filepath.Join(repoRoot, f))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	docker := read("Dockerfile")
	for _, m := range regexp.MustCompile(`(?m)^FROM (\S+)`).FindAllStringSubmatch(docker, -1) {
		if host, _, ok := strings.Cut(m[1], "/"); !ok || !strings.ContainsAny(host, ".:") {
			t.Errorf("Dockerfile: FROM %s: name the registry (docker.io/library/...)", m[1])
		}
	}
	for _, want := range []string{
		`HEALTHCHECK --interval=30s --timeout=3s CMD ["yieldshell", "healthcheck"]`,
		"YIELDSHELL_HTTP_ADDR=0.0.0.0:8080",
		"EXPOSE 8080",
		"useradd --create-home --uid 10001",
	} {
		if !strings.Contains(docker, want) {
			t.Errorf("Dockerfile lacks %q", want)
		}
	}
	if strings.Contains(docker, "\nCMD") {
		t.Error("Dockerfile: a CMD with --http would leave the health check on YIELDSHELL_HTTP_ADDR's port")
	}
	k8s := read("deploy/kubernetes.yaml")
	for _, want := range []string{
		"runAsNonRoot: true",
		"runAsUser: 10001",
		"fsGroup: 10001",
		"seccompProfile: {type: RuntimeDefault}",
		"allowPrivilegeEscalation: false",
		`capabilities: {drop: ["ALL"]}`,
		"defaultMode: 0440",
		"readOnly: true",
		`{name: YIELDSHELL_HTTP_ADDR, value: "0.0.0.0:8080"}`,
		"{name: http, containerPort: 8080}",
		"secretKeyRef: {name: yieldshell-token, key: token}",
	} {
		if !strings.Contains(k8s, want) {
			t.Errorf("deploy/kubernetes.yaml lacks %q", want)
		}
	}
	if strings.Contains(k8s, "kind: Secret") {
		t.Error("deploy/kubernetes.yaml holds a Secret: applying it would overwrite the one made with kubectl create secret")
	}
}
