package image

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/winkube/winkube/pkg/cmd"
	"github.com/winkube/winkube/pkg/imageinfo"
	"github.com/winkube/winkube/pkg/imageinfo/registry"
	rt "github.com/winkube/winkube/pkg/imageinfo/registry/registrytest"
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
	var reports []Report
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
	} {
		_, errOut, code := runImage(t, args...)
		if code != ExitUsage || !strings.Contains(errOut, args[0]) {
			t.Errorf("%v: exit %d, stderr %q; want %d naming %s", args, code, errOut, ExitUsage, args[0])
		}
	}
}

func node(name, pool, os, build, runtime string) corev1.Node {
	labels := map[string]string{"kubernetes.io/os": os, "kubernetes.io/arch": "amd64"}
	if pool != "" {
		labels[labelPool] = pool
	}
	if build != "" {
		labels["node.kubernetes.io/windows-build"] = build
	}
	return corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		Status: corev1.NodeStatus{NodeInfo: corev1.NodeSystemInfo{ContainerRuntimeVersion: runtime + "://1.7.13"}}}
}

// rule: IMG-2, IMG-4 — each node group runs the entry its runtime pulls
// only when that build starts on the group's build.
func TestPoolsThatRunTheImage(t *testing.T) {
	srv := rt.Start(t)
	srv.PushFixtures(t)
	groups := Groups([]corev1.Node{
		node("linux-1", "linux", "linux", "", "containerd"),
		node("win19-1", "win2019", "windows", "10.0.17763", "containerd"),
		node("win19-2", "win2019", "windows", "10.0.17763", "containerd"),
		node("win22-1", "win2022", "windows", "10.0.20348", "containerd"),
		node("win25-1", "win2025", "windows", "10.0.26100", "containerd"),
		node("dock22-1", "", "windows", "10.0.20348", "docker"),
	})
	if len(groups) != 5 || groups[1].Name() != "win2019" || len(groups[1].Nodes) != 2 {
		t.Fatalf("groups %+v, want 5 with win2019 holding two nodes", groups)
	}
	r := newRegistryResolver(t)
	fits := func(ref string) map[string]PoolFit {
		reps := describe(t.Context(), r, []string{ref}, nil, groups)
		out := map[string]PoolFit{}
		for _, f := range reps[0].Pools {
			out[f.Pool] = f
		}
		return out
	}
	multi := fits(srv.Ref(rt.MultiOS))
	if !multi["linux"].Runs || !multi["win2019"].Runs || !multi["win2022"].Runs || !multi["win2025"].Runs {
		t.Errorf("multi-OS image: %+v, want every pool to run it", multi)
	}
	if multi["win2019"].Entry != "windows/amd64:10.0.17763.5329" || multi["win2025"].Entry != "windows/amd64:10.0.20348.2227" {
		t.Errorf("multi-OS entries: 2019 pulls %s, 2025 pulls %s", multi["win2019"].Entry, multi["win2025"].Entry)
	}
	img2022 := fits(srv.Ref(rt.Servercore2022))
	if img2022["win2019"].Runs || !strings.Contains(img2022["win2019"].Reason, "no match for platform in manifest") {
		t.Errorf("2022 index on 2019 nodes: %+v, want the pull to fail (IMG-4)", img2022["win2019"])
	}
	if !img2022["win2022"].Runs || !img2022["win2025"].Runs || img2022["linux"].Runs {
		t.Errorf("2022 index: %+v", img2022)
	}
	single := fits(srv.Ref(rt.Single2022))
	if f := single["win2019"]; f.Runs || f.Entry == "" || !strings.Contains(f.Reason, "does not match the host operating system") {
		t.Errorf("single 2022 image on 2019 nodes: %+v, want it pulled and then failing to start (IMG-4)", f)
	}
	img2025 := fits(srv.Ref(rt.Servercore2025))
	// Docker pulls only entries not newer than the host (IMG-4).
	if f := img2025["windows/amd64 10.0.20348"]; f.Runs || f.Runtime != "docker" {
		t.Errorf("2025 index on the docker 2022 node: %+v, want no", f)
	}
}

func newRegistryResolver(t *testing.T) imageinfo.Resolver {
	t.Helper()
	r, err := registry.New(registry.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return r
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
