package apitest

import (
	"bytes"
	"strings"
	"testing"

	"github.com/winkube/winkube/pkg/cmd"
	"github.com/winkube/winkube/pkg/cmd/winkube/image"
	rt "github.com/winkube/winkube/pkg/imageinfo/registry/registrytest"
)

// rule: IMG-2, IMG-4 — `winkube image --kubeconfig` lists the emulated
// cluster's pools and which of them run each image.
func TestImageCommandListsPools(t *testing.T) {
	needCluster(t)
	srv := rt.Start(t)
	srv.PushFixtures(t)
	var out, errOut bytes.Buffer
	c := image.NewCommand(cmd.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut})
	c.SetArgs([]string{"--kubeconfig", kubeconfig, srv.Ref(rt.Servercore2022), srv.Ref(rt.MultiOS)})
	if err := c.Execute(); err != nil {
		t.Fatalf("winkube image: %v\n%s", err, errOut.String())
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
