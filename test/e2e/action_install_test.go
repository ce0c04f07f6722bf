package e2e

import (
	"archive/zip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// installModule is a module at winkube's path that, like winkube's own
// go.mod, has a replace directive (winkube replaces the Kubernetes staging
// modules, as every module that imports k8s.io/kubernetes must). Its
// winkube command says which build tag it was built with, so the test sees
// the tag the install step passes.
var installModule = map[string]string{
	"go.mod": "module github.com/winkube/winkube\n\ngo 1.26\n\nreplace k8s.io/api => k8s.io/api v0.36.3\n",
	"cmd/winkube/main.go": "package main\n\nimport \"fmt\"\n\nvar tags []string\n\n" +
		"func main() { fmt.Println(\"winkube from the module proxy, tags\", tags) }\n",
	"cmd/winkube/noplugins.go": "//go:build kustomize_disable_go_plugin_support\n\npackage main\n\n" +
		"func init() { tags = append(tags, \"kustomize_disable_go_plugin_support\") }\n",
}

// TestActionInstallsAVersion runs the action's install step with a version,
// as a workflow that pins one would, against a module proxy (a file://
// proxy, the protocol `go` speaks to proxy.golang.org) serving a module
// with a replace directive: `go install MODULE@VERSION` refuses such a
// module, and the step must download and build it instead, with the build
// tag that leaves out kustomize's Go plugin loader.
func TestActionInstallsAVersion(t *testing.T) {
	const version = "v0.0.1"
	base := t.TempDir()
	proxy := filepath.Join(base, "proxy")
	writeProxyModule(t, proxy, "github.com/winkube/winkube", version, installModule)
	goEnv := []string{
		"GOPROXY=file://" + proxy, "GOSUMDB=off", "GOTOOLCHAIN=local",
		"GOMODCACHE=" + filepath.Join(base, "modcache"),
		"GOFLAGS=-modcacherw", // so that the test's temp dir can be removed
	}

	install := exec.Command("go", "install", "github.com/winkube/winkube/cmd/winkube@"+version)
	install.Dir, install.Env = base, append(os.Environ(), append(goEnv, "GOBIN="+filepath.Join(base, "gobin"))...)
	if out, err := install.CombinedOutput(); err == nil || !strings.Contains(string(out), "replace directives") {
		t.Fatalf("go install of a module with replace directives: %v\n%s (the premise of the step changed)", err, out)
	}

	a, _ := readAction(t)
	runner := newRunner(t)
	bin := filepath.Join(runner.temp, "winkube-bin")
	if err := os.Remove(filepath.Join(bin, "winkube")); err != nil { // the symlink to the test's winkube
		t.Fatal(err)
	}
	env := func(version string) map[string]string {
		m := map[string]string{"WINKUBE_VERSION": version, "WINKUBE_ACTION_PATH": filepath.Join(base, "no-checkout")}
		for _, kv := range goEnv {
			k, v, _ := strings.Cut(kv, "=")
			m[k] = v
		}
		return m
	}
	out, err := runner.run(t, a.step(t, "install"), env(version))
	if err != nil {
		t.Fatalf("the install step failed: %v\n%s", err, out)
	}
	if !strings.Contains(out, "winkube from the module proxy, tags [kustomize_disable_go_plugin_support]") {
		t.Errorf("the install step did not build the version with the tag:\n%s", out)
	}
	if path, _ := os.ReadFile(filepath.Join(runner.temp, "GITHUB_PATH")); string(path) != bin+"\n" {
		t.Errorf("GITHUB_PATH %q, want %q", path, bin+"\n")
	}

	out, err = runner.run(t, a.step(t, "install"), env("v0.0.2"))
	if err == nil || !strings.Contains(out, "::error::cannot download github.com/winkube/winkube@v0.0.2") {
		t.Errorf("a version the proxy does not have: %v\n%s", err, out)
	}
}

// writeProxyModule lays out one module version as a Go module proxy
// serves it (the GOPROXY protocol: list, .info, .mod, .zip under
// <module>/@v/).
func writeProxyModule(t *testing.T, proxy, module, version string, files map[string]string) {
	t.Helper()
	dir := filepath.Join(proxy, module, "@v")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "list", version+"\n")
	writeFile(t, dir, version+".info", `{"Version":"`+version+`","Time":"2026-11-28T00:00:00Z"}`)
	writeFile(t, dir, version+".mod", files["go.mod"])
	f, err := os.Create(filepath.Join(dir, version+".zip"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z := zip.NewWriter(f)
	for name, content := range files {
		w, err := z.Create(module + "@" + version + "/" + name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(content)); err != nil {
			t.Fatal(err)
		}
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
}
