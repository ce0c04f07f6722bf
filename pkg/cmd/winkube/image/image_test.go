package image

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/winkube/winkube/pkg/cmd"
	"github.com/winkube/winkube/pkg/imageinfo"
	rt "github.com/winkube/winkube/pkg/imageinfo/registry/registrytest"
	"github.com/winkube/winkube/pkg/imageinfo/report"
)

// runImage runs `winkube image args...` in process, with no default
// cluster, and returns stdout, stderr and the exit code.
func runImage(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	t.Setenv("HOME", t.TempDir())
	t.Setenv("KUBECONFIG", "")
	var out, errOut bytes.Buffer
	c := NewCommand(cmd.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut})
	c.SetArgs(args)
	c.SetOut(&out)
	c.SetErr(&errOut)
	err := c.Execute()
	code := 0
	var exit *cmd.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.Code
		if exit.Err != nil {
			errOut.WriteString(exit.Err.Error() + "\n")
		}
	case err != nil:
		t.Fatalf("image %v: %v", args, err)
	}
	return out.String(), errOut.String(), code
}

// squeeze folds runs of spaces so assertions do not depend on column widths.
func squeeze(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.Join(strings.Fields(l), " ")
	}
	return strings.Join(lines, "\n")
}

// rule: IMG-3, IMG-1 — the platforms are the registry's index entries, and
// each Windows build is named by its release.
func TestImagePrintsRegistryPlatforms(t *testing.T) {
	srv := rt.Start(t)
	srv.PushFixtures(t)
	out, errOut, code := runImage(t, srv.Ref(rt.MultiOS), srv.Ref(rt.Single2022), srv.Ref(rt.NoOSVersion))
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, errOut)
	}
	got := squeeze(out)
	for _, want := range []string{
		srv.Ref(rt.MultiOS) + " (image index, from registry)",
		"linux/amd64 - - -",
		"windows/amd64 10.0.17763.5329 Windows Server 2019 (LTSC) -",
		"windows/amd64 10.0.20348.2227 Windows Server 2022 (LTSC) -",
		srv.Ref(rt.Single2022) + " (single-platform image, from registry)",
		"windows/amd64 - any build -",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestImageJSON(t *testing.T) {
	srv := rt.Start(t)
	srv.PushFixtures(t)
	out, _, code := runImage(t, "-o", "json", srv.Ref(rt.Servercore2025), srv.Ref(rt.Servercore2022))
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	var reports []report.Report
	if err := json.Unmarshal([]byte(out), &reports); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	if len(reports) != 2 {
		t.Fatalf("%d reports, want 2", len(reports))
	}
	r := reports[0]
	if r.Source != imageinfo.SourceRegistry || !r.Index || !r.Known || len(r.Platforms) != 1 {
		t.Fatalf("report %+v", r)
	}
	if p := r.Platforms[0]; p.OSVersion != "10.0.26100.2314" || p.Release != "Windows Server 2025 (LTSC)" {
		t.Errorf("platform %+v, want 10.0.26100.2314 named Windows Server 2025", p)
	}
	if f := reports[1].Platforms[0].OSFeatures; len(f) != 1 || f[0] != "win32k" {
		t.Errorf("2022 entry os.features %v, want [win32k]", f)
	}
}

func TestImageUnknownWithCatalog(t *testing.T) {
	out, _, code := runImage(t, "--resolve-images", "catalog", "registry.example.com/team/app:1.0")
	if code != ExitUnknown {
		t.Errorf("exit %d, want %d for an unknown image", code, ExitUnknown)
	}
	got := squeeze(out)
	for _, want := range []string{"from unknown", "unknown:", "linux/amd64 is only a guess", "winkube image --resolve-images registry"} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestImageFallsBackToCatalogOnRegistryError(t *testing.T) {
	closed := rt.Start(t)
	closed.Close()
	out, _, code := runImage(t, "--registry-mirror", "mcr.microsoft.com="+closed.Host, "mcr.microsoft.com/windows/servercore:ltsc2019")
	if code != 0 {
		t.Errorf("exit %d, want 0: the catalog knows the image", code)
	}
	got := squeeze(out)
	for _, want := range []string{"from catalog", "registry error: registry " + closed.Host, "connection refused", "Windows Server 2019"} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestImagePullSecretFile(t *testing.T) {
	srv := rt.Start(t, rt.WithBasicAuth("puller", "s3cret"))
	srv.PushFixtures(t)
	file := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(file, rt.DockerConfigJSON(srv.Host, "puller", "s3cret"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, _, code := runImage(t, srv.Ref(rt.Servercore2019))
	if code != ExitUnknown || !strings.Contains(out, "401 Unauthorized") {
		t.Errorf("without credentials: exit %d, output:\n%s", code, out)
	}
	out, _, code = runImage(t, "--pull-secret-file", file, srv.Ref(rt.Servercore2019))
	if code != 0 || !strings.Contains(out, "from registry") || !strings.Contains(out, "10.0.17763.5329") {
		t.Errorf("with credentials: exit %d, output:\n%s", code, out)
	}
}

func TestImageUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"--resolve-images", "dns", "nginx"},
		{"--registry-mirror", "docker.io", "nginx"},
		{"-o", "yaml", "nginx"},
		{"--pull-secret-file", "/nonexistent/config.json", "nginx"},
		{"--kubeconfig", "/nonexistent/kubeconfig", "--resolve-images", "catalog", "nginx"},
		// Not an image reference: a usage error naming it, not a guess
		// about docker.io/library/::bad::latest.
		{"::bad::"},
	} {
		_, errOut, code := runImage(t, args...)
		if code != ExitUsage || !strings.Contains(errOut, args[0]) {
			t.Errorf("%v: exit %d, stderr %q; want %d naming %s", args, code, errOut, ExitUsage, args[0])
		}
	}
}

// rule: IMG-3 — an image that cannot be pulled at all (a tag the registry
// lacks, or the base images' missing latest) says so and exits 1.
func TestImageThatCannotBePulled(t *testing.T) {
	srv := rt.Start(t)
	srv.PushFixtures(t)
	out, _, code := runImage(t, "--resolve-images", "registry", srv.Ref("team/nothing:1.0"))
	if code != ExitUnknown || !strings.Contains(out, "cannot be pulled: not found") {
		t.Errorf("exit %d, output:\n%s\nwant exit %d and 'cannot be pulled: not found'", code, out, ExitUnknown)
	}
	out, _, code = runImage(t, "--resolve-images", "catalog", "mcr.microsoft.com/windows/servercore")
	if code != ExitUnknown || !strings.Contains(out, `publishes no tag "latest"`) {
		t.Errorf("exit %d, output:\n%s", code, out)
	}
}
