package apitest

import (
	"bytes"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/winkube/winkube/pkg/imageinfo/registry"
	rt "github.com/winkube/winkube/pkg/imageinfo/registry/registrytest"
	"github.com/winkube/winkube/pkg/imageinfo/report"
)

// rule: IMG-2, IMG-4 — what `winkube image --kubeconfig` prints: the
// emulated cluster's pools and which of them run each image.
func TestImageCommandListsPools(t *testing.T) {
	needCluster(t)
	srv := rt.Start(t)
	srv.PushFixtures(t)
	nodes, err := client.CoreV1().Nodes().List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	resolver, err := registry.New(registry.Options{})
	if err != nil {
		t.Fatal(err)
	}
	groups := report.Groups(nodes.Items)
	reports := report.Describe(t.Context(), resolver, []string{srv.Ref(rt.Servercore2022), srv.Ref(rt.MultiOS)}, nil, groups)
	var out bytes.Buffer
	if err := report.WriteText(&out, reports, true); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(out.String(), "\n")
	for i, l := range lines {
		lines[i] = strings.Join(strings.Fields(l), " ")
	}
	got := strings.Join(lines, "\n")
	for _, want := range []string{
		"POOL NODES PLATFORM RUNS",
		"win2019 2 windows/amd64 10.0.17763 (containerd) no: image index " + srv.Ref(rt.Servercore2022) + " has no entry for Windows 10.0.17763",
		"win2022 1 windows/amd64 10.0.20348 (containerd) yes: windows/amd64:10.0.20348.2227",
		"linux 1 linux/amd64 (containerd) no: no match for platform in manifest",
		"win2019 2 windows/amd64 10.0.17763 (containerd) yes: windows/amd64:10.0.17763.5329",
		"linux 1 linux/amd64 (containerd) yes: linux/amd64",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}
